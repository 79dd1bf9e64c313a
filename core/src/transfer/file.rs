//! Transfer from file to file: what `npc-player transfer` and the studio both do.

use std::path::Path;

use super::{Transfer, TransferError, TransferOptions, transfer};
use crate::asset::amend::add_shapes;
use crate::asset::{Asset, AssetError};

/// Why a file could not be given shapes.
#[derive(Debug, thiserror::Error)]
pub enum TransferFileError {
    #[error("cannot load the avatar: {0}")]
    Load(AssetError),
    #[error(transparent)]
    Transfer(#[from] TransferError),
    #[error("no part of the avatar lies close enough to the warped source face to move")]
    NothingMoves,
    #[error("cannot add the shapes to the file: {0}")]
    Amend(AssetError),
    #[error("the file with the shapes does not load back: {0}")]
    LoadBack(AssetError),
}

/// The project's own head on its body (its neck and head joints are landmarks too), as the
/// source of shapes.
pub fn own_head() -> Result<Asset, AssetError> {
    let parts = crate::procedural::head::head_parts();
    Asset::from_bytes(&crate::procedural::body::avatar_glb(&parts), None)
}

/// Gives the GLB `target` (external files resolved in `base_dir`) the ARKit shapes of
/// `source`: the new file's bytes, checked to load back, and what was made. With
/// `replace_existing`, the touched meshes' own targets are dropped.
pub fn transfer_glb(
    target: &[u8],
    base_dir: Option<&Path>,
    source: &Asset,
    options: &TransferOptions,
    replace_existing: bool,
) -> Result<(Vec<u8>, Transfer), TransferFileError> {
    let avatar = Asset::from_bytes(target, base_dir).map_err(TransferFileError::Load)?;
    let mut made = transfer(source, &avatar, options)?;
    made.shapes.replace_existing = replace_existing;
    if made.shapes.primitives.is_empty() {
        return Err(TransferFileError::NothingMoves);
    }
    let glb = add_shapes(target, &made.shapes).map_err(TransferFileError::Amend)?;
    Asset::from_bytes(&glb, base_dir).map_err(TransferFileError::LoadBack)?;
    Ok((glb, made))
}
