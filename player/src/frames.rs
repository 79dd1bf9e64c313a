//! `npc-player render`: draws a project's world offscreen, frame by frame at a fixed step, and
//! writes DIR/frame_0000.png, ... The same seed and options give the same frames.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::headless::Headless;
use crate::render::MeshStoreBuilder;
use crate::world::World;

/// What `render` draws.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub project: PathBuf,
    pub frames: u32,
    pub fps: f64,
    pub width: u32,
    pub height: u32,
    /// Fixed time of day (0-1); `None` starts at the project's and lets the clock run.
    pub time_of_day: Option<f64>,
    /// Speaker id of the NPC to frame closely.
    pub closeup: Option<String>,
    pub seed: u64,
    pub shadows: bool,
    pub out: PathBuf,
}

/// Parses "1280x720".
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("size {text:?} is not WIDTHxHEIGHT (e.g. 1280x720)"))?;
    let parse = |s: &str| -> Result<u32, String> {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (1..=16384).contains(v))
            .ok_or_else(|| format!("size {text:?}: {s:?} is not a whole number from 1 to 16384"))
    };
    Ok((parse(w)?, parse(h)?))
}

/// Loads the world and a headless renderer for it.
pub fn open(
    project: &Path,
    seed: u64,
    width: u32,
    height: u32,
) -> anyhow::Result<(World, Headless)> {
    let mut meshes = MeshStoreBuilder::default();
    let world = World::load(project, seed, &mut meshes)?;
    let headless = Headless::new(
        meshes,
        &world.content.skies,
        width,
        height,
        world.project.scene.shadow_size,
    )?;
    tracing::info!("rendering on {}", headless.gpu.describe());
    Ok((world, headless))
}

/// Renders the frames; returns the files written.
pub fn render(options: &RenderOptions) -> anyhow::Result<Vec<PathBuf>> {
    if !(options.fps.is_finite() && options.fps > 0.0) {
        anyhow::bail!("--fps must be above 0 (got {})", options.fps);
    }
    let (mut world, mut headless) = open(
        &options.project,
        options.seed,
        options.width,
        options.height,
    )?;
    if let Some(t) = options.time_of_day {
        world.time_of_day = t.clamp(0.0, 1.0);
        world.clock_runs = false;
    }
    if let Some(id) = &options.closeup
        && world.npc_index(id).is_none()
    {
        let ids: Vec<&str> = world.npcs.iter().map(|n| n.id.as_str()).collect();
        anyhow::bail!(
            "--closeup {id}: no such NPC (the project has {})",
            ids.join(", ")
        );
    }
    std::fs::create_dir_all(&options.out)
        .with_context(|| format!("cannot create {}", options.out.display()))?;
    let dt = (1.0 / options.fps) as f32;
    let mut written = Vec::with_capacity(options.frames as usize);
    for frame in 0..options.frames {
        let camera = match &options.closeup {
            Some(id) => world
                .closeup_camera(id)
                .unwrap_or_else(|| world.overview_camera()),
            None => world.overview_camera(),
        };
        world.update(dt, camera.position, &|_| 0.0);
        let view = world.frame_view(camera, options.shadows);
        let image = headless.draw_world(&world, &view)?;
        let path = options.out.join(format!("frame_{frame:04}.png"));
        image
            .save(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_bad_ones_say_why() {
        assert_eq!(parse_size("1280x720"), Ok((1280, 720)));
        assert_eq!(parse_size("64X32"), Ok((64, 32)));
        assert!(matches!(parse_size("1280"), Err(e) if e.contains("WIDTHxHEIGHT")));
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("axb").is_err());
    }
}
