//! KTX2 textures holding Basis Universal data (KHR_texture_basisu): ETC1S (BasisLZ) and UASTC
//! (raw or Zstandard), transcoded to RGBA8 by Binomial's own transcoder.

use basisu_c_sys::TranscodeTargetFormat;
use basisu_c_sys::extra::{
    BasisuTranscoder, ChannelType, SupportedTextureCompression, basisu_transcoder_init,
};

/// The first bytes of every KTX2 file.
pub const IDENTIFIER: &[u8] = b"\xABKTX 20\xBB\r\n\x1A\n";

/// A decoded image: its base level's width, height and RGBA8 pixels (as stored: sRGB-encoded
/// for colour textures, as a PNG's are).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rgba8 {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

/// Transcodes the base level of a KTX2 file's first layer and face to RGBA8.
pub fn decode(bytes: &[u8]) -> Result<Rgba8, String> {
    basisu_transcoder_init();
    let transcoder = BasisuTranscoder::new(
        bytes,
        SupportedTextureCompression::empty(),
        ChannelType::Auto,
    )
    .map_err(|e| format!("not a Basis Universal KTX2 file the transcoder reads ({e})"))?;
    let info = transcoder.get_info();
    let image = transcoder
        .transcode(Some(TranscodeTargetFormat::RGBA32), None)
        .map_err(|e| format!("the transcoder failed on it ({e})"))?;
    // Levels come largest first; the base level's first layer and face lead.
    let size = usize::try_from(u64::from(info.width) * u64::from(info.height) * 4)
        .map_err(|e| e.to_string())?;
    let mut pixels = image.data;
    if pixels.len() < size {
        return Err(format!(
            "the transcoder gave {} bytes for a {}x{} image",
            pixels.len(),
            info.width,
            info.height
        ));
    }
    pixels.truncate(size);
    Ok(Rgba8 {
        width: info.width,
        height: info.height,
        pixels,
    })
}
