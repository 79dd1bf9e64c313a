//! Reading the file: .gltf (JSON + external or embedded buffers) and .glb (binary container).

use std::path::{Path, PathBuf};

use base64::Engine as _;
use gltf::json;

use super::error::{AssetError, Result};
use super::glb::split_glb;

/// Largest file or buffer this loader reads, bytes.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// A parsed document with its buffers' bytes, and where relative URIs resolve from.
#[derive(Debug)]
pub struct Source {
    pub root: json::Root,
    pub buffers: Vec<Vec<u8>>,
    /// Buffer views decoded from EXT_meshopt_compression, by view index.
    pub decoded_views: Vec<Option<Vec<u8>>>,
    pub base_dir: Option<PathBuf>,
    /// What was passed over to read it (animation channels the player cannot use).
    pub warnings: Vec<String>,
}

impl Source {
    /// Reads a .gltf or .glb file and every buffer it references.
    pub fn from_path(path: &Path) -> Result<Self> {
        let bytes = read_limited(path)?;
        let base = path.parent().map(Path::to_path_buf);
        Self::from_bytes(&bytes, base)
    }

    /// Parses file bytes; external URIs resolve against `base_dir` (none: only embedded data).
    pub fn from_bytes(bytes: &[u8], base_dir: Option<PathBuf>) -> Result<Self> {
        if super::fbx::is_fbx(bytes) {
            return Err(AssetError::Format(
                "it is an FBX file, which is read for its skeleton and clips only (as \
                 avatar.clips): export the avatar as glTF (.glb) (Blender: File > Export > \
                 glTF 2.0); docs/formats.md lists what is read"
                    .into(),
            ));
        }
        let (json_bytes, blob) = if bytes.starts_with(b"glTF") {
            split_glb(bytes)?
        } else {
            (bytes, None)
        };
        let (root, warnings) = parse_root(json_bytes)?;
        let mut buffers = Vec::with_capacity(root.buffers.len());
        for (index, buffer) in root.buffers.iter().enumerate() {
            buffers.push(load_buffer(index, buffer, blob, base_dir.as_deref())?);
        }
        let decoded_views = super::compression::decode_views(&root, &buffers)?;
        Ok(Self {
            root,
            buffers,
            decoded_views,
            base_dir,
            warnings,
        })
    }

    /// Bytes of an image referenced by URI (file or data URI).
    pub fn uri_bytes(&self, uri: &str) -> std::result::Result<Vec<u8>, String> {
        if let Some(data) = decode_data_uri(uri) {
            return data;
        }
        let Some(base) = &self.base_dir else {
            return Err("external file, but the document was not read from a folder".into());
        };
        let path = resolve(base, uri)?;
        read_limited(&path).map_err(|e| e.to_string())
    }
}

/// The document, and what was passed over to read it. A document that does not parse as
/// glTF because of animation channels without a node (`KHR_animation_pointer`) is read with
/// those channels resolved or skipped ([`super::animation_pointer`]); any other error is the
/// parser's, with its line and column.
fn parse_root(json_bytes: &[u8]) -> Result<(json::Root, Vec<String>)> {
    let as_error = |e: serde_json::Error| AssetError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let first = match serde_json::from_slice::<json::Root>(json_bytes) {
        Ok(root) => return Ok((root, Vec::new())),
        Err(e) => e,
    };
    let Ok(mut doc) = serde_json::from_slice::<serde_json::Value>(json_bytes) else {
        return Err(as_error(first));
    };
    let Some(warning) = super::animation_pointer::resolve(&mut doc) else {
        return Err(as_error(first));
    };
    let root = serde_json::from_value::<json::Root>(doc).map_err(|e| AssetError::Json {
        line: first.line(),
        column: first.column(),
        message: format!("{first} (and with its animation channels resolved: {e})"),
    })?;
    Ok((root, vec![warning]))
}

pub(super) fn read_limited(path: &Path) -> Result<Vec<u8>> {
    let io = |io| AssetError::Io {
        path: path.to_owned(),
        io,
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > MAX_FILE_BYTES {
        return Err(io(std::io::Error::other(format!(
            "the file is {size} bytes; at most {MAX_FILE_BYTES} are read"
        ))));
    }
    std::fs::read(path).map_err(io)
}

fn load_buffer(
    index: usize,
    buffer: &json::Buffer,
    blob: Option<&[u8]>,
    base_dir: Option<&Path>,
) -> Result<Vec<u8>> {
    let declared = usize::try_from(buffer.byte_length.0).unwrap_or(usize::MAX);
    let missing = |uri: &str, reason: String| AssetError::MissingBuffer {
        index,
        uri: uri.to_owned(),
        reason,
    };
    let fallback = buffer
        .extensions
        .as_ref()
        .and_then(|e| e.others.get("EXT_meshopt_compression"))
        .and_then(|e| e.get("fallback"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    if fallback && buffer.uri.is_none() {
        // Only there for loaders without the extension; the compressed views replace it.
        return Ok(Vec::new());
    }
    let data = match &buffer.uri {
        None => blob
            .map(<[u8]>::to_vec)
            .ok_or_else(|| missing("GLB binary chunk", "the file has no binary chunk".into()))?,
        Some(uri) => {
            if let Some(decoded) = decode_data_uri(uri) {
                decoded.map_err(|reason| missing("data URI", reason))?
            } else {
                let base = base_dir.ok_or_else(|| {
                    missing(uri, "external file, but the document has no folder".into())
                })?;
                let path = resolve(base, uri).map_err(|reason| missing(uri, reason))?;
                read_limited(&path).map_err(|e| missing(uri, e.to_string()))?
            }
        }
    };
    if data.len() < declared {
        let uri = buffer.uri.as_deref().unwrap_or("GLB binary chunk");
        return Err(missing(
            uri,
            format!("it holds {} bytes but declares {declared}", data.len()),
        ));
    }
    Ok(data)
}

/// Decodes `data:...;base64,...`; None when `uri` is not a data URI.
fn decode_data_uri(uri: &str) -> Option<std::result::Result<Vec<u8>, String>> {
    let rest = uri.strip_prefix("data:")?;
    Some(match rest.split_once(";base64,") {
        Some((_, payload)) => base64::engine::general_purpose::STANDARD
            .decode(payload)
            .map_err(|e| format!("bad base64 data: {e}")),
        None => Err("only base64 data URIs are supported".into()),
    })
}

/// A relative URI inside `base` (percent-decoded); absolute paths and URLs are refused.
fn resolve(base: &Path, uri: &str) -> std::result::Result<PathBuf, String> {
    if uri.contains("://") {
        return Err("remote URIs are not fetched".into());
    }
    let decoded = percent_decode(uri);
    let relative = Path::new(&decoded);
    if relative.is_absolute() {
        return Err("absolute paths are not followed".into());
    }
    Ok(base.join(relative))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = s.get(i + 1..i + 3)
            && let Ok(v) = u8::from_str_radix(hex, 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_fbx_file_is_named_as_such_and_refused() {
        for bytes in [
            &b"Kaydara FBX Binary  \0\x1a\0"[..],
            b"; FBX 7.4.0 project file",
        ] {
            let Err(e) = Source::from_bytes(bytes, None) else {
                panic!("an FBX file was read as glTF");
            };
            assert!(e.to_string().contains("FBX file"), "{e}");
        }
    }

    #[test]
    fn broken_containers_are_errors_not_panics() {
        for bytes in [
            &b"glTF"[..],
            b"glTF\x02\x00\x00\x00\x05\x00\x00\x00",
            b"glTF\x02\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\x4a\x53\x4f\x4e",
            b"glTF\x01\x00\x00\x00",
            b"{",
            b"",
        ] {
            assert!(Source::from_bytes(bytes, None).is_err());
        }
    }

    #[test]
    fn embedded_buffers_decode() {
        let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":3,"uri":"data:application/octet-stream;base64,AQID"}]}"#;
        let source = Source::from_bytes(json, None).expect("loads");
        assert_eq!(source.buffers[0], vec![1, 2, 3]);
        let short = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":9,"uri":"data:application/octet-stream;base64,AQID"}]}"#;
        let err = Source::from_bytes(short, None).expect_err("too short");
        assert!(err.to_string().contains("declares 9"), "{err}");
    }
}
