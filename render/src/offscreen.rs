//! Drawing without a window: a colour texture (multisampled, resolved into a single-sample
//! one) and its read back into an RGBA image.

use super::gpu::Gpu;
use super::renderer::Target;

/// The format offscreen frames are drawn in.
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// The same frames seen without the sRGB encoding, for what blends in sRGB space (egui's
/// screen over the world).
pub const OFFSCREEN_OVERLAY_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// An offscreen colour target of one size.
#[derive(Debug)]
pub struct Offscreen {
    pub width: u32,
    pub height: u32,
    resolved: wgpu::Texture,
    resolved_view: wgpu::TextureView,
    overlay_view: wgpu::TextureView,
    multisampled: Option<wgpu::TextureView>,
    readback: wgpu::Buffer,
    padded_row: u32,
}

impl Offscreen {
    /// A `width` x `height` target drawn with `samples` samples per pixel.
    #[must_use]
    pub fn new(gpu: &Gpu, width: u32, height: u32, samples: u32) -> Self {
        let width = width.max(1);
        let height = height.max(1);
        let texture = |samples: u32, usage, view_formats: &[wgpu::TextureFormat]| {
            gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("offscreen"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format: OFFSCREEN_FORMAT,
                usage,
                view_formats,
            })
        };
        let resolved = texture(
            1,
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::TEXTURE_BINDING,
            &[OFFSCREEN_OVERLAY_FORMAT],
        );
        let resolved_view = resolved.create_view(&wgpu::TextureViewDescriptor::default());
        let overlay_view = resolved.create_view(&wgpu::TextureViewDescriptor {
            label: Some("offscreen overlay"),
            format: Some(OFFSCREEN_OVERLAY_FORMAT),
            ..wgpu::TextureViewDescriptor::default()
        });
        let multisampled = (samples > 1).then(|| {
            texture(samples, wgpu::TextureUsages::RENDER_ATTACHMENT, &[])
                .create_view(&wgpu::TextureViewDescriptor::default())
        });
        let padded_row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("offscreen readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            width,
            height,
            resolved,
            resolved_view,
            overlay_view,
            multisampled,
            readback,
            padded_row,
        }
    }

    /// The finished frame, for showing as a texture (the studio's 3D view).
    #[must_use]
    pub fn view(&self) -> &wgpu::TextureView {
        &self.resolved_view
    }

    /// The finished frame as [`OFFSCREEN_OVERLAY_FORMAT`], to draw over.
    #[must_use]
    pub fn overlay_view(&self) -> &wgpu::TextureView {
        &self.overlay_view
    }

    /// The target to pass to the renderer.
    #[must_use]
    pub fn target(&self) -> Target<'_> {
        match &self.multisampled {
            Some(ms) => Target {
                view: ms,
                resolve: Some(&self.resolved_view),
                texture: None,
                width: self.width,
                height: self.height,
            },
            None => Target {
                view: &self.resolved_view,
                resolve: None,
                texture: Some(&self.resolved),
                width: self.width,
                height: self.height,
            },
        }
    }

    /// Records the copy of the frame into the readback buffer (after the passes).
    pub fn copy_out(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_texture_to_buffer(
            self.resolved.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Waits for the GPU and returns the copied frame.
    pub fn read(&self, gpu: &Gpu) -> anyhow::Result<image::RgbaImage> {
        let slice = self.readback.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| anyhow::anyhow!("the GPU did not finish the frame: {e}"))?;
        let mut pixels = Vec::with_capacity((self.width * self.height * 4) as usize);
        {
            let data = slice
                .get_mapped_range()
                .map_err(|e| anyhow::anyhow!("cannot read the frame back: {e}"))?;
            for row in data.chunks(self.padded_row as usize) {
                pixels.extend_from_slice(&row[..(self.width * 4) as usize]);
            }
        }
        self.readback.unmap();
        image::RgbaImage::from_raw(self.width, self.height, pixels)
            .ok_or_else(|| anyhow::anyhow!("the frame read back has the wrong size"))
    }
}

/// Reads a frame size written WIDTHxHEIGHT ("1280x720"), each 1 to 16384.
///
/// # Errors
/// Text that is not such a size: the reason, in words.
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
