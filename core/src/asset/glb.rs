//! The GLB container: a header, a JSON chunk and an optional BIN chunk.

use super::error::{AssetError, Result};

/// Splits a GLB container into its JSON chunk and optional BIN chunk.
pub fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    let word = |at: usize| -> Option<u32> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let bad = |m: &str| AssetError::Format(format!("GLB container: {m}"));
    let version = word(4).ok_or_else(|| bad("truncated header"))?;
    if version != 2 {
        return Err(bad(&format!("version {version}, expected 2")));
    }
    let total = word(8).ok_or_else(|| bad("truncated header"))? as usize;
    let bytes = bytes.get(..total.min(bytes.len())).unwrap_or(bytes);
    let mut at = 12;
    let mut json_chunk = None;
    let mut bin_chunk = None;
    while at + 8 <= bytes.len() {
        let length = word(at).ok_or_else(|| bad("truncated chunk"))? as usize;
        let kind = word(at + 4).ok_or_else(|| bad("truncated chunk"))?;
        let start = at + 8;
        let end = start
            .checked_add(length)
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| bad("a chunk runs past the end of the file"))?;
        match kind {
            0x4E4F_534A if json_chunk.is_none() => json_chunk = Some(&bytes[start..end]),
            0x004E_4942 if bin_chunk.is_none() => bin_chunk = Some(&bytes[start..end]),
            _ => {}
        }
        at = end + (4 - length % 4) % 4;
    }
    let json_chunk = json_chunk.ok_or_else(|| bad("no JSON chunk"))?;
    Ok((json_chunk, bin_chunk))
}

/// The GLB of a JSON document and its binary chunk (both padded to 4 bytes here).
#[must_use]
pub fn join_glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut json = json.to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    let word = |v: usize| u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2_u32.to_le_bytes());
    out.extend_from_slice(&word(total));
    out.extend_from_slice(&word(json.len()));
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&word(bin.len()));
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}
