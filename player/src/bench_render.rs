//! `npc-player bench-render`: frame times of a project's world with N talking NPCs, offscreen.
//!
//! Every NPC speaks the same synthesised line (offline engine), each from its own point in the
//! line, so faces, bodies and active morph targets change every frame as in play. Reports the
//! median and 95th percentile of the CPU time of a frame (animation, draw list, upload,
//! recording) and of the GPU time (timestamps around the passes, where the adapter has them),
//! with the adapter's name.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use glam::Vec3;
use npc_core::agent::cues::Behaviour;
use npc_core::project::Project;
use npc_core::speech::LineSource;

mod sustained;

use crate::record::Recorder;
use crate::runtime::LineId;
use crate::world::World;
use npc_render::Headless;
use npc_render::MeshStoreBuilder;
use sustained::Sustained;

/// The line every NPC speaks.
const LINE: &str = "Welcome, traveler. What brings you to our village on such a fine morning?";

/// What `bench-render` measures.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub project: PathBuf,
    pub npcs: usize,
    pub frames: u32,
    pub width: u32,
    pub height: u32,
    pub shadows: bool,
    /// Samples per pixel (1 or 4).
    pub samples: u32,
    /// Force this many active targets per face mesh (instead of what the faces do).
    pub active_targets: Option<usize>,
    /// Record every frame to this file (`--record`), to measure what recording costs.
    pub record: Option<PathBuf>,
    /// Far NPCs animate at a lower rate (the player's default).
    pub reduced_rates: bool,
    /// And work out less of their faces and hands (the player's default).
    pub reduced_detail: bool,
    /// Where each coarser level of detail begins, metres (the player's unless given).
    pub lod_distances: Option<[f32; npc_render::LOD_COUNT - 1]>,
    /// Sustained frames recorded on a render thread while the next is prepared (the
    /// player's way); false: one after the other on one thread.
    pub render_thread: bool,
}

/// Median and 95th percentile of a set of samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub p95: f64,
}

fn spread(samples: &mut [f64]) -> Option<Spread> {
    if samples.is_empty() {
        return None;
    }
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    Some(Spread {
        median: at(0.5),
        p95: at(0.95),
    })
}

/// What one run measured.
#[derive(Clone, Debug)]
pub struct BenchReport {
    pub adapter: String,
    /// Whether the main pass was drawn by visibility and the compute resolve.
    pub resolved: bool,
    pub npcs: usize,
    pub frames: u32,
    pub cpu_ms: Spread,
    /// The part of the CPU time spent animating (bodies, faces, palettes, morph weights).
    pub animate_ms: Spread,
    /// The part spent filling the draw list (culling, levels, palettes, targets, chunks).
    pub draw_list_ms: Spread,
    pub gpu_ms: Option<Spread>,
    /// Median GPU ms of the deform, shadow and main passes.
    pub passes_ms: Option<[f64; 3]>,
    /// Median GPU ms of the main pass's steps where it was resolved in compute: the
    /// visibility pass, the far objects' compute raster with its merge, the tile sorting,
    /// the resolve, and the copy with what is drawn over.
    pub resolve_ms: Option<[f64; 5]>,
    /// Wall time of whole frames, GPU waited for.
    pub frame_ms: Spread,
    /// Mean wall time per frame with up to two frames in flight (CPU and GPU overlapping).
    pub sustained_ms: f64,
    /// Where a sustained frame's wall time went: preparing it (animation and draw list),
    /// recording and submitting it (the draw list's upload included) and waiting for the
    /// GPU to finish the frame two before; median ms.
    pub sustained_phases_ms: [f64; 3],
    /// Recording and submitting split: the draw list's uploads, encoding the passes, the
    /// queue's submit; median ms.
    pub sustained_record_ms: [f64; 3],
    pub objects: usize,
    pub active_morphs: usize,
    /// Vertices the last frame deformed, the most the device deforms a frame, and the NPCs
    /// the last frame left out to keep within that.
    pub deformed_vertices: u32,
    pub deform_budget: Option<u32>,
    pub left_out: u32,
    /// Triangles the last frame drew in the main and the shadow pass.
    pub triangles: [u64; 2],
    /// Of the main pass's and the shadow pass's, those the last frame rasterized in compute.
    pub rastered: [u32; 2],
}

/// `n` NPCs cycled from the roster, standing on a grid around the map centre 1.5 m apart.
fn crowd(project: &mut Project, n: usize) -> anyhow::Result<()> {
    if project.npcs.is_empty() {
        anyhow::bail!("the project has no NPCs to copy");
    }
    let side = (n as f64).sqrt().ceil().max(1.0) as usize;
    let roster = project.npcs.clone();
    // 1.5 m in map units of a 240 m map is about 0.00625; the spawn is normalised.
    let step = 0.00625_f32;
    project.npcs = (0..n)
        .map(|i| {
            let mut npc = roster[i % roster.len()].clone();
            npc.id = format!("{}-{i}", npc.id);
            let (gx, gy) = ((i % side) as f32, (i / side) as f32);
            let half = (side as f32 - 1.0) / 2.0;
            npc.spawn = [0.5 + (gx - half) * step, 0.5 + (gy - half) * step];
            npc
        })
        .collect();
    Ok(())
}

/// Frame step of the benchmark, seconds.
const DT: f32 = 1.0 / 60.0;

/// What every frame of a run shares: the options, the camera and the line's length.
#[derive(Clone, Copy)]
struct Shot<'a> {
    options: &'a BenchOptions,
    camera: npc_render::Camera,
    line_ms: f64,
}

/// Where one frame's CPU time went, ms.
#[derive(Clone, Copy, Debug, Default)]
struct Spent {
    animate_ms: f64,
    draw_list_ms: f64,
}

/// One frame's CPU work at `t_ms`: every NPC animated (each speaking from its own point in the
/// line), recorded when asked, active targets forced when asked, and the draw list. Returns the
/// frame's view.
fn animate(
    world: &mut World,
    primitives: &[npc_render::GpuPrimitive],
    shot: &Shot<'_>,
    t_ms: f64,
    list: &mut npc_render::DrawList,
    recorder: Option<&mut Recorder>,
    spent: &mut Spent,
) -> anyhow::Result<npc_render::FrameView> {
    let Shot {
        options,
        camera,
        line_ms,
    } = *shot;
    let start = Instant::now();
    world.update(DT, camera.position, &|i| {
        (t_ms + i as f64 * 377.0) % line_ms
    });
    spent.animate_ms = start.elapsed().as_secs_f64() * 1000.0;
    if let Some(recorder) = recorder {
        recorder.record(world, t_ms)?;
    }
    if let Some(k) = options.active_targets {
        for npc in &mut world.npcs {
            npc.weights.edit(|meshes| {
                for weights in meshes {
                    for (t, w) in weights.iter_mut().enumerate() {
                        *w = if t < k {
                            0.3 + 0.2 * ((t_ms * 0.001 + t as f64).sin() as f32)
                        } else {
                            0.0
                        };
                    }
                }
            });
        }
    }
    let view = world.frame_view(camera, options.shadows);
    let aspect = options.width as f32 / options.height as f32;
    let start = Instant::now();
    world.draw(primitives, &view, aspect, list);
    spent.draw_list_ms = start.elapsed().as_secs_f64() * 1000.0;
    Ok(view)
}

/// A crowd of `npcs` NPCs of a project, every one speaking the benchmark line from its own
/// point in it, and the meshes their avatars need.
#[derive(Debug)]
pub struct SpeakingCrowd {
    pub world: World,
    pub meshes: MeshStoreBuilder,
    /// Length of the line, ms.
    pub line_ms: f64,
}

impl SpeakingCrowd {
    /// Loads the project, copies its roster to `npcs` NPCs and starts the line on each.
    ///
    /// # Errors
    /// The project does not load, has no NPCs, or the line cannot be synthesised.
    pub fn new(project_path: &std::path::Path, npcs: usize) -> anyhow::Result<Self> {
        let mut project = Project::load(project_path)?;
        crowd(&mut project, npcs.max(1))?;
        let mut meshes = MeshStoreBuilder::default();
        let mut world = World::from_project(project, project_path, &mut meshes)?;
        world.clock_runs = false;
        world.time_of_day = 0.45;
        let line = LineSource::from_text(LINE, &npc_core::project::Voice::default())
            .context("cannot synthesise the benchmark line")?;
        let cue = line.cue;
        let line_ms = cue.audio_ms.unwrap_or_default().max(1.0);
        for (seq, npc) in world.npcs.iter_mut().enumerate() {
            let line = LineId {
                conversation: "bench".to_owned(),
                seq: seq as u64,
            };
            npc.speak(line, &cue, &Behaviour::default(), &[]);
        }
        Ok(Self {
            world,
            meshes,
            line_ms,
        })
    }

    /// The benchmark's camera: at eye height in front of the crowd's front edge, looking at
    /// its middle.
    #[must_use]
    pub fn camera(&self) -> npc_render::Camera {
        let centre = self.world.centre();
        let side = (self.world.npcs.len() as f32).sqrt() * 1.5;
        let eye = centre + Vec3::new(0.0, 1.7, side * 0.5 + 3.0);
        npc_render::Camera::looking_at(eye, centre + Vec3::new(0.0, 1.0, 0.0))
    }

    /// One frame's animation at `t_ms`: each NPC 377 ms further into the line than the one
    /// before it.
    pub fn update(&mut self, t_ms: f64, camera: Vec3) {
        let line_ms = self.line_ms;
        self.world
            .update(DT, camera, &|i| (t_ms + i as f64 * 377.0) % line_ms);
    }
}

/// Runs the benchmark.
pub fn run(options: &BenchOptions) -> anyhow::Result<BenchReport> {
    let crowd = SpeakingCrowd::new(&options.project, options.npcs)?;
    let camera = crowd.camera();
    let SpeakingCrowd {
        mut world,
        meshes,
        line_ms,
    } = crowd;
    world.reduced_rates = options.reduced_rates;
    world.reduced_detail = options.reduced_detail;
    if let Some(distances) = options.lod_distances {
        world.lod_distances = distances;
    }
    let headless = Headless::with_samples(
        meshes,
        &world.content.skies,
        options.width,
        options.height,
        world.project.scene.shadow_size,
        options.samples,
    )?;
    let shot = Shot {
        options,
        camera,
        line_ms,
    };
    let dt = DT;
    let warmup = 10;
    let mut cpu = Vec::with_capacity(options.frames as usize);
    let mut animating = Vec::with_capacity(options.frames as usize);
    let mut listing = Vec::with_capacity(options.frames as usize);
    let mut gpu = Vec::with_capacity(options.frames as usize);
    let mut passes: [Vec<f64>; 3] = Default::default();
    let mut steps: [Vec<f64>; 5] = Default::default();
    let mut wall = Vec::with_capacity(options.frames as usize);
    let mut recorder = options
        .record
        .as_deref()
        .map(Recorder::create)
        .transpose()?;
    let mut headless = headless;
    let mut list = std::mem::take(&mut headless.list);
    let mut objects = 0;
    let mut active = 0;
    let mut deformed = (0, 0);
    let mut triangles = [0, 0];
    let mut rastered = [0; 2];
    for frame in 0..options.frames + warmup {
        let start = Instant::now();
        let t_ms = f64::from(frame) * f64::from(dt) * 1000.0;
        let mut spent = Spent::default();
        let view = animate(
            &mut world,
            &headless.renderer.store.primitives,
            &shot,
            t_ms,
            &mut list,
            recorder.as_mut(),
            &mut spent,
        )?;
        let cpu_start = Instant::now();
        let gpu_ms = headless.submit(&list, &view);
        let submit_ms = cpu_start.elapsed();
        if headless.timer.is_none() {
            headless
                .gpu
                .device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| anyhow::anyhow!("the GPU did not finish: {e}"))?;
        }
        let frame_ms = start.elapsed().as_secs_f64() * 1000.0;
        if frame >= warmup {
            // CPU: everything up to the submit, without waiting for the GPU (the timestamp
            // read-back waits; that wait is not CPU work).
            let cpu_ms = (cpu_start - start).as_secs_f64() * 1000.0
                + if headless.timer.is_some() {
                    0.0
                } else {
                    submit_ms.as_secs_f64() * 1000.0
                };
            cpu.push(cpu_ms);
            animating.push(spent.animate_ms);
            listing.push(spent.draw_list_ms);
            if let Some(g) = gpu_ms {
                gpu.push(g.total);
                passes[0].push(g.deform);
                passes[1].push(g.shadow);
                passes[2].push(g.main);
                if let Some(r) = g.resolve {
                    for (all, step) in steps.iter_mut().zip([
                        r.visibility,
                        r.raster,
                        r.classify,
                        r.resolve,
                        r.over,
                    ]) {
                        all.push(step);
                    }
                }
            }
            wall.push(frame_ms);
            objects = list.objects.len();
            active = list.morphs.len();
            deformed = (list.deformed_vertices, list.left_out);
            triangles = npc_render::triangles_drawn(&list, &headless.renderer.store.primitives);
            rastered = [
                headless.renderer.rastered_last_frame(),
                headless.renderer.shadow_rastered_last_frame(),
            ];
        }
    }
    // Sustained rate: the same work as a render loop runs it, the GPU drawing a frame while
    // the CPU records the next (at most two frames in flight).
    let first_frame = options.frames + warmup;
    let (headless, list, sustained) = if options.render_thread {
        sustained::on_render_thread(
            headless,
            list,
            &mut world,
            &shot,
            first_frame,
            &mut recorder,
        )?
    } else {
        sustained::on_one_thread(
            headless,
            list,
            &mut world,
            &shot,
            first_frame,
            &mut recorder,
        )?
    };
    if let Some(mut recorder) = recorder {
        recorder.finish()?;
    }
    let list_budget = list.deform_budget;
    let Sustained {
        frame_ms: sustained_ms,
        phases_ms: sustained_phases_ms,
        record_ms: sustained_record_ms,
    } = sustained;
    Ok(BenchReport {
        sustained_ms,
        sustained_phases_ms,
        sustained_record_ms,
        adapter: headless.gpu.describe(),
        resolved: headless.renderer.resolved_last_frame(),
        npcs: options.npcs,
        frames: options.frames,
        cpu_ms: spread(&mut cpu).context("no frames measured")?,
        animate_ms: spread(&mut animating).context("no frames measured")?,
        draw_list_ms: spread(&mut listing).context("no frames measured")?,
        gpu_ms: spread(&mut gpu),
        passes_ms: {
            let [mut d, mut s, mut m] = passes;
            match (spread(&mut d), spread(&mut s), spread(&mut m)) {
                (Some(d), Some(s), Some(m)) => Some([d.median, s.median, m.median]),
                _ => None,
            }
        },
        resolve_ms: {
            let medians: Vec<f64> = steps
                .iter_mut()
                .filter_map(|s| spread(s).map(|s| s.median))
                .collect();
            <[f64; 5]>::try_from(medians).ok()
        },
        frame_ms: spread(&mut wall).context("no frames measured")?,
        objects,
        active_morphs: active,
        deformed_vertices: deformed.0,
        deform_budget: list_budget,
        left_out: deformed.1,
        triangles,
        rastered,
    })
}

impl BenchReport {
    /// The report as printed.
    #[must_use]
    pub fn text(&self) -> String {
        let gpu = match self.gpu_ms {
            Some(g) => {
                let p = self.passes_ms.unwrap_or_default();
                let steps = self.resolve_ms.map_or(String::new(), |r| {
                    format!(
                        ": visibility {:.3}, compute raster {:.3}, tiles {:.3}, resolve {:.3}, over {:.3}",
                        r[0], r[1], r[2], r[3], r[4]
                    )
                });
                format!(
                    "gpu median {:.3} ms p95 {:.3} ms (deform {:.3}, shadow {:.3}, main {:.3}{steps})",
                    g.median, g.p95, p[0], p[1], p[2]
                )
            }
            None => "gpu: no timestamps on this adapter".to_owned(),
        };
        format!(
            "adapter: {} (main pass {})\nnpcs {} frames {}: cpu median {:.3} ms p95 {:.3} ms (animation median {:.3} \
             ms, draw list median {:.3} ms); {gpu}; frame median \
             {:.3} ms p95 {:.3} ms; sustained {:.3} ms a frame ({:.0} frames/s, two in flight; \
             median preparing {:.3} ms, recording and submitting {:.3} ms (uploads {:.3}, \
             encoding {:.3}, submit {:.3}), waiting {:.3} ms); {} \
             objects, {} active morph entries; {} vertices deformed (at most {}), {} NPCs left \
             out; {} triangles drawn ({} rasterized in compute), {} in the shadow map ({} \
             rasterized in compute)",
            self.adapter,
            if self.resolved {
                "by visibility, resolved in compute"
            } else {
                "shaded by the rasterizer"
            },
            self.npcs,
            self.frames,
            self.cpu_ms.median,
            self.cpu_ms.p95,
            self.animate_ms.median,
            self.draw_list_ms.median,
            self.frame_ms.median,
            self.frame_ms.p95,
            self.sustained_ms,
            1000.0 / self.sustained_ms.max(1e-6),
            self.sustained_phases_ms[0],
            self.sustained_phases_ms[1],
            self.sustained_record_ms[0],
            self.sustained_record_ms[1],
            self.sustained_record_ms[2],
            self.sustained_phases_ms[2],
            self.objects,
            self.active_morphs,
            self.deformed_vertices,
            self.deform_budget
                .map_or_else(|| "unlimited".to_owned(), |b| b.to_string()),
            self.left_out,
            self.triangles[0],
            self.rastered[0],
            self.triangles[1],
            self.rastered[1]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_takes_the_median_and_p95() {
        let mut s: Vec<f64> = (1..=100).map(f64::from).collect();
        let r = spread(&mut s).expect("samples");
        assert!((r.median - 50.0).abs() <= 1.0);
        assert!((r.p95 - 95.0).abs() <= 1.0);
        assert!(spread(&mut []).is_none());
    }

    #[test]
    fn a_crowd_has_n_distinct_npcs_near_the_centre() {
        let mut p = npc_core::project::demo_project();
        crowd(&mut p, 10).expect("roster");
        assert_eq!(p.npcs.len(), 10);
        let ids: std::collections::HashSet<&str> = p.npcs.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids.len(), 10);
        assert!(p.npcs.iter().all(|n| (n.spawn[0] - 0.5).abs() < 0.02));
    }
}
