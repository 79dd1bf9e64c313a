//! The GPU: picks an adapter (a discrete GPU first, anything else after, software Vulkan
//! included), logs the choice and opens a device with the limits the renderer needs.

use thiserror::Error;

/// Why no device could be opened.
#[derive(Debug, Error)]
pub enum GpuError {
    #[error(
        "no GPU adapter found (Vulkan). Install a Vulkan driver; on Debian, software Vulkan \
         comes with `apt-get install mesa-vulkan-drivers libvulkan1`"
    )]
    NoAdapter,
    #[error("the adapter {adapter} refused a device")]
    Device {
        adapter: String,
        source: wgpu::RequestDeviceError,
    },
}

/// An open device and what it is.
#[derive(Debug)]
pub struct Gpu {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    /// GPU timestamps can be written inside passes.
    pub timestamps: bool,
}

/// Order of preference among adapter types: lower is better.
fn rank(kind: wgpu::DeviceType) -> u8 {
    match kind {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    }
}

/// The backends to look at: `WGPU_BACKEND` when set, else Vulkan.
fn backends() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN)
}

/// Keeps Mesa's device-select Vulkan layer from asking a Wayland server for the default GPU
/// when there is no session to ask (XDG_RUNTIME_DIR unset, as on servers and in CI): libwayland
/// would print "error: XDG_RUNTIME_DIR is invalid or not set" every time adapters are listed.
/// Nothing is lost: adapters are ranked here ([`Gpu::open`]). Call it first thing in `main`,
/// before any thread starts.
#[allow(unsafe_code)]
pub fn quiet_display_probe() {
    let session =
        std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
    if !session && std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: called at the start of `main`, before any other thread exists, so nothing
        // reads the environment while it changes.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}

/// A new instance (with the display's handle when rendering to a window).
#[must_use]
pub fn instance(display: Option<Box<dyn wgpu::wgt::WgpuHasDisplayHandle>>) -> wgpu::Instance {
    let mut desc = match display {
        Some(d) => wgpu::InstanceDescriptor::new_with_display_handle(d),
        None => wgpu::InstanceDescriptor::new_without_display_handle(),
    };
    desc.backends = backends();
    wgpu::Instance::new(desc)
}

impl Gpu {
    /// Anisotropic filtering of textures: 4 samples on a GPU (what 1, 4 and 8 cost on an H200
    /// is in docs/performance.md); none on a software rasteriser, where it costs seconds a
    /// frame.
    #[must_use]
    pub fn anisotropy(&self) -> u16 {
        if self.info.device_type == wgpu::DeviceType::Cpu {
            1
        } else {
            4
        }
    }

    /// Opens the best adapter; with a surface, only adapters that can present to it.
    pub fn open(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self, GpuError> {
        let mut adapters = pollster::block_on(instance.enumerate_adapters(backends()));
        if let Some(surface) = surface {
            adapters.retain(|a| a.is_surface_supported(surface));
        }
        for a in &adapters {
            let i = a.get_info();
            tracing::debug!("adapter: {} ({:?}, {:?})", i.name, i.device_type, i.backend);
        }
        adapters.sort_by_key(|a| rank(a.get_info().device_type));
        let adapter = adapters.into_iter().next().ok_or(GpuError::NoAdapter)?;
        let info = adapter.get_info();
        tracing::info!(
            "GPU: {} ({:?}, {:?}, driver {})",
            info.name,
            info.device_type,
            info.backend,
            info.driver
        );
        let timestamps = adapter.features().contains(
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES,
        );
        let mut features = if timestamps {
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        } else {
            wgpu::Features::empty()
        };
        // The visibility pass writes each pixel's triangle (the renderer draws with the mesh
        // passes alone without it).
        features |= adapter.features() & wgpu::Features::PRIMITIVE_INDEX;
        // Far objects of the visibility pass are rasterized in compute where the device has
        // 64-bit atomics (`compute_raster.rs`).
        features |= super::compute_raster::wanted(adapter.features());
        let desc = wgpu::DeviceDescriptor {
            label: Some("npc-player"),
            required_features: features,
            required_limits: adapter.limits(),
            ..wgpu::DeviceDescriptor::default()
        };
        let (device, queue) =
            pollster::block_on(adapter.request_device(&desc)).map_err(|source| {
                GpuError::Device {
                    adapter: info.name.clone(),
                    source,
                }
            })?;
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            info,
            timestamps,
        })
    }

    /// A device someone else opened (the studio's window, through eframe).
    #[must_use]
    pub fn from_parts(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
    ) -> Self {
        let info = adapter.get_info();
        Self {
            instance,
            adapter,
            device,
            queue,
            info,
            timestamps: false,
        }
    }

    /// Opens the best adapter for offscreen rendering.
    pub fn headless() -> Result<Self, GpuError> {
        Self::open(instance(None), None)
    }

    /// Most vertices one frame's deform pass can write on this device: its output is one
    /// storage binding, limited by `max_storage_buffer_binding_size`.
    #[must_use]
    pub fn deform_budget(&self) -> u32 {
        let bytes = self.device.limits().max_storage_buffer_binding_size;
        u32::try_from(bytes / size_of::<crate::gpu_types::GpuDeformed>() as u64).unwrap_or(u32::MAX)
    }

    /// "NAME (TYPE, BACKEND)" for logs and reports.
    #[must_use]
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.device_type, self.info.backend
        )
    }
}
