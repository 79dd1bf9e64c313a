//! A render thread draws a frame while the next is prepared, so two draw lists take turns and
//! the renderer keeps a joint palette for each (uploading only what each list changed since
//! its own frame before). A speaking crowd whose far NPCs keep their palettes for frames at a
//! time, drawn that way, gives the same pictures as the same frames drawn from one list.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use npc_core::project::demo_project;
use npc_player::SpeakingCrowd;
use npc_render::{DrawList, FrameView, Headless, PaletteUpload, RenderThread};

const SIZE: (u32, u32) = (160, 120);
const FRAMES: usize = 12;

fn headless(crowd: SpeakingCrowd) -> (Headless, SpeakingCrowd) {
    let SpeakingCrowd {
        world,
        meshes,
        line_ms,
    } = crowd;
    let headless = Headless::new(
        meshes,
        &world.content.skies,
        SIZE.0,
        SIZE.1,
        world.project.scene.shadow_size,
    )
    .expect("a Vulkan adapter (mesa-vulkan-drivers in CI)");
    let crowd = SpeakingCrowd {
        world,
        meshes: npc_render::MeshStoreBuilder::default(),
        line_ms,
    };
    (headless, crowd)
}

/// Palette entries `list` wrote this frame.
fn written(list: &DrawList) -> usize {
    let changes = list.palette_changes();
    let (id, frame) = changes.stamp();
    match changes.since(Some((id, frame - 1))) {
        PaletteUpload::Ranges(ranges) => ranges.iter().map(|r| r.len()).sum(),
        other => panic!("a list's own frame before gives its ranges, not {other:?}"),
    }
}

#[test]
fn two_lists_on_a_render_thread_draw_what_one_list_draws() {
    let dir = tempfile::tempdir().unwrap();
    npc_core::procedural::generate::generate(&dir.path().join("assets")).unwrap();
    let project = dir.path().join("demo.ron");
    demo_project().save(&project).unwrap();
    let (mut alone, mut crowd) = headless(SpeakingCrowd::new(&project, 30).unwrap());
    // A second renderer of the same content for the render thread.
    let (threaded, _) = headless(SpeakingCrowd::new(&project, 30).unwrap());
    // From 40 m the crowd animates at 15 updates a second: each list keeps some palettes.
    let centre = crowd.world.centre();
    let camera = npc_render::Camera::looking_at(
        centre + glam::Vec3::new(0.0, 1.7, 40.0),
        centre + glam::Vec3::new(0.0, 1.0, 0.0),
    );
    let primitives = alone.renderer.store.primitives.clone();
    let aspect = SIZE.0 as f32 / SIZE.1 as f32;
    let mut one_list = std::mem::take(&mut alone.list);
    let mut thread = RenderThread::spawn(
        (threaded, Vec::new()),
        DrawList::default(),
        |(headless, images): &mut (Headless, Vec<_>), list: &DrawList, view: FrameView| {
            images.push(headless.draw_list(list, &view)?);
            Ok(())
        },
    )
    .unwrap();
    let mut expected = Vec::new();
    let mut kept = 0;
    for frame in 0..FRAMES {
        crowd.update(frame as f64 * 1000.0 / 60.0, camera.position);
        let view = crowd.world.frame_view(camera, true);
        crowd.world.draw(&primitives, &view, aspect, &mut one_list);
        expected.push(alone.draw_list(&one_list, &view).unwrap());
        let mut list = thread.list().expect("the render thread runs");
        crowd.world.draw(&primitives, &view, aspect, &mut list);
        if frame >= 2 {
            kept += usize::from(written(&list) < list.palette().len());
        }
        assert!(thread.draw(list, view), "the render thread stopped");
    }
    let ((_, images), _) = thread.finish().unwrap();
    assert!(
        kept > 0,
        "some frames keep palettes written two frames before (far NPCs at lower rates)"
    );
    assert_eq!(images.len(), FRAMES);
    for (frame, (got, want)) in images.iter().zip(&expected).enumerate() {
        let differing = got
            .pixels()
            .zip(want.pixels())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differing, 0, "frame {frame}: {differing} pixels differ");
    }
}
