//! Every WGSL module the renderer builds validates with naga, and every WGSL file is in one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

#[test]
fn every_wgsl_module_validates_with_naga_and_every_file_is_used() {
    let modules = npc_render::shader_modules();
    for (name, source) in &modules {
        let module = naga::front::wgsl::parse_str(source)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                modules.iter().any(|(_, m)| m.contains(&text)),
                "{} is in no shader module",
                path.display()
            );
        }
    }
}
