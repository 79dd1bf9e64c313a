//! A WAV file that is still being written (a streamed line, protocol 1.1): the header is read
//! once it is all there, then each poll takes the whole sample frames appended since the last
//! (a frame cut mid-sample waits for its other bytes). The sizes in the header are not
//! trusted: a streaming writer leaves them at 0 or 0xFFFFFFFF, or patches them as it goes.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The most a streamed line may hold (10 minutes of 48 kHz 16-bit stereo).
pub const MAX_STREAM_BYTES: u64 = 10 * 60 * 48_000 * 4;
/// Longest header looked through for the data chunk.
const MAX_HEADER_BYTES: usize = 64 * 1024;

/// The header a streaming writer puts first: 16-bit PCM, `channels` at `sample_rate`, its
/// sizes unknown (0xFFFFFFFF), the samples to follow.
#[must_use]
pub fn streaming_header(sample_rate: u32, channels: u16) -> Vec<u8> {
    let mut h = Vec::with_capacity(44);
    h.extend_from_slice(b"RIFF");
    h.extend_from_slice(&u32::MAX.to_le_bytes());
    h.extend_from_slice(b"WAVEfmt ");
    h.extend_from_slice(&16u32.to_le_bytes());
    h.extend_from_slice(&1u16.to_le_bytes());
    h.extend_from_slice(&channels.to_le_bytes());
    h.extend_from_slice(&sample_rate.to_le_bytes());
    h.extend_from_slice(&(sample_rate * u32::from(channels) * 2).to_le_bytes());
    h.extend_from_slice(&(channels * 2).to_le_bytes());
    h.extend_from_slice(&16u16.to_le_bytes());
    h.extend_from_slice(b"data");
    h.extend_from_slice(&u32::MAX.to_le_bytes());
    h
}

/// How the samples are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WavFormat {
    pub sample_rate: u32,
    pub channels: u16,
    /// 16-bit integers, or 32-bit floats.
    pub float: bool,
}

impl WavFormat {
    fn frame_bytes(self) -> usize {
        usize::from(self.channels) * if self.float { 4 } else { 2 }
    }
}

/// The reader of one growing WAV.
#[derive(Debug)]
pub struct GrowingWav {
    path: PathBuf,
    /// Bytes read so far.
    offset: u64,
    /// Bytes read and not yet used: the header while it is incomplete, then a part frame.
    pending: Vec<u8>,
    format: Option<WavFormat>,
}

/// Why a growing WAV cannot be read on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrowingWavError {
    #[error("{0}: not a WAV file ({1})")]
    NotWav(String, String),
    #[error("{0}: larger than {MAX_STREAM_BYTES} bytes; the rest is not played")]
    TooLarge(String),
    #[error("{0}: {1}")]
    Io(String, String),
}

impl GrowingWav {
    #[must_use]
    pub fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            offset: 0,
            pending: Vec::new(),
            format: None,
        }
    }

    /// The format, once the header has been read.
    #[must_use]
    pub fn format(&self) -> Option<WavFormat> {
        self.format
    }

    /// Bytes read so far.
    #[must_use]
    pub fn bytes_read(&self) -> u64 {
        self.offset
    }

    /// Reads what was appended since the last poll; appends its samples (mono, -1..1) to
    /// `out`. A file that does not exist yet gives nothing.
    ///
    /// # Errors
    /// The header is not a WAV's, the file outgrew [`MAX_STREAM_BYTES`], or it cannot be
    /// read.
    pub fn poll(&mut self, out: &mut Vec<f32>) -> Result<usize, GrowingWavError> {
        let shown = || self.path.display().to_string();
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(GrowingWavError::Io(shown(), e.to_string())),
        };
        let len = file
            .metadata()
            .map_err(|e| GrowingWavError::Io(shown(), e.to_string()))?
            .len();
        if len > MAX_STREAM_BYTES {
            return Err(GrowingWavError::TooLarge(shown()));
        }
        if len <= self.offset {
            return Ok(0);
        }
        file.seek(SeekFrom::Start(self.offset))
            .map_err(|e| GrowingWavError::Io(shown(), e.to_string()))?;
        let mut bytes = Vec::new();
        (&mut file)
            .take(len - self.offset)
            .read_to_end(&mut bytes)
            .map_err(|e| GrowingWavError::Io(shown(), e.to_string()))?;
        self.offset += bytes.len() as u64;
        let shown = self.path.display().to_string();
        self.push_bytes(&bytes, out)
            .map_err(|why| GrowingWavError::NotWav(shown, why))
    }

    /// Takes `bytes` that follow those seen before (the parser alone, for tests and fuzzing).
    ///
    /// # Errors
    /// The header is not a WAV's (the reason).
    pub fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<f32>) -> Result<usize, String> {
        self.pending.extend_from_slice(bytes);
        if self.format.is_none() {
            match parse_header(&self.pending)? {
                Some((format, data_start)) => {
                    self.format = Some(format);
                    self.pending.drain(..data_start);
                }
                None if self.pending.len() > MAX_HEADER_BYTES => {
                    return Err(format!(
                        "no data chunk in the first {MAX_HEADER_BYTES} bytes"
                    ));
                }
                None => return Ok(0),
            }
        }
        let Some(format) = self.format else {
            return Ok(0);
        };
        let frame = format.frame_bytes();
        let whole = self.pending.len() / frame * frame;
        let before = out.len();
        for f in self.pending[..whole].chunks_exact(frame) {
            let sum: f32 = if format.float {
                f.chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .map(|s| {
                        if s.is_finite() {
                            s.clamp(-1.0, 1.0)
                        } else {
                            0.0
                        }
                    })
                    .sum()
            } else {
                f.chunks_exact(2)
                    .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32_768.0)
                    .sum()
            };
            out.push(sum / f32::from(format.channels));
        }
        self.pending.drain(..whole);
        Ok(out.len() - before)
    }
}

/// The format and where the samples start, once `bytes` hold the whole header; `None` while
/// more is needed.
fn parse_header(bytes: &[u8]) -> Result<Option<(WavFormat, usize)>, String> {
    if bytes.len() < 12 {
        let riff = b"RIFF";
        let n = bytes.len().min(4);
        if bytes[..n] != riff[..n] {
            return Err("it does not start with RIFF".to_owned());
        }
        return Ok(None);
    }
    if &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err("it does not start with RIFF....WAVE".to_owned());
    }
    let mut at = 12;
    let mut format = None;
    loop {
        let Some(head) = bytes.get(at..at + 8) else {
            return Ok(None);
        };
        let id = &head[0..4];
        let size = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        let body = at + 8;
        if id == b"data" {
            let Some(format) = format else {
                return Err("the data chunk comes before the fmt chunk".to_owned());
            };
            return Ok(Some((format, body)));
        }
        let Some(end) = body.checked_add(size).map(|e| e + (size & 1)) else {
            return Err("a chunk's size overflows".to_owned());
        };
        if end > MAX_HEADER_BYTES {
            return Err(format!(
                "no data chunk in the first {MAX_HEADER_BYTES} bytes"
            ));
        }
        if id == b"fmt " {
            let Some(fmt) = bytes.get(body..body + size.min(40)) else {
                return Ok(None);
            };
            if fmt.len() < 16 {
                return Err("its fmt chunk is too short".to_owned());
            }
            let tag = u16::from_le_bytes([fmt[0], fmt[1]]);
            let channels = u16::from_le_bytes([fmt[2], fmt[3]]);
            let sample_rate = u32::from_le_bytes([fmt[4], fmt[5], fmt[6], fmt[7]]);
            let bits = u16::from_le_bytes([fmt[14], fmt[15]]);
            // WAVE_FORMAT_EXTENSIBLE names its format in the sub-format's first two bytes.
            let tag = if tag == 0xFFFE && fmt.len() >= 26 {
                u16::from_le_bytes([fmt[24], fmt[25]])
            } else {
                tag
            };
            let float = match (tag, bits) {
                (1, 16) => false,
                (3, 32) => true,
                _ => {
                    return Err(format!(
                        "{bits}-bit samples of format {tag}: a streamed line must be 16-bit PCM \
                         or 32-bit float"
                    ));
                }
            };
            if channels == 0 || !(8_000..=192_000).contains(&sample_rate) {
                return Err(format!("{channels} channel(s) at {sample_rate} Hz"));
            }
            format = Some(WavFormat {
                sample_rate,
                channels,
                float,
            });
        }
        at = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A streaming writer's header with a chunk the reader must pass over before the data.
    fn header(rate: u32, channels: u16) -> Vec<u8> {
        let plain = streaming_header(rate, channels);
        let data_at = plain.len() - 8;
        let mut h = plain[..data_at].to_vec();
        h.extend_from_slice(b"LIST");
        h.extend_from_slice(&3u32.to_le_bytes());
        h.extend_from_slice(b"abc\0");
        h.extend_from_slice(&plain[data_at..]);
        h
    }

    #[test]
    fn samples_come_as_bytes_arrive_whatever_the_cuts() {
        let mut bytes = header(22_050, 2);
        for i in 0..100i16 {
            bytes.extend_from_slice(&(i * 100).to_le_bytes());
            bytes.extend_from_slice(&(i * 100).to_le_bytes());
        }
        let mut whole = Vec::new();
        let mut w = GrowingWav::new(Path::new("x.wav"));
        w.push_bytes(&bytes, &mut whole).expect("whole");
        assert_eq!(whole.len(), 100);
        assert!((whole[50] - 5000.0 / 32768.0).abs() < 1e-6);
        // Byte by byte: the same samples, a frame cut mid-sample waits.
        let mut pieces = Vec::new();
        let mut w = GrowingWav::new(Path::new("x.wav"));
        for b in &bytes {
            w.push_bytes(std::slice::from_ref(b), &mut pieces)
                .expect("piece");
        }
        assert_eq!(pieces, whole);
        assert_eq!(
            w.format(),
            Some(WavFormat {
                sample_rate: 22_050,
                channels: 2,
                float: false
            })
        );
    }

    #[test]
    fn what_is_not_a_streamable_wav_is_refused_with_the_reason() {
        let mut out = Vec::new();
        let e = GrowingWav::new(Path::new("x"))
            .push_bytes(b"ID3\x04 an mp3", &mut out)
            .expect_err("mp3");
        assert!(e.contains("RIFF"), "{e}");
        let mut h = header(16_000, 1);
        h[34] = 24; // 24-bit
        let e = GrowingWav::new(Path::new("x"))
            .push_bytes(&h, &mut out)
            .expect_err("24-bit");
        assert!(e.contains("16-bit"), "{e}");
        // A header still arriving is not an error.
        assert_eq!(
            GrowingWav::new(Path::new("x")).push_bytes(b"RIF", &mut out),
            Ok(0)
        );
    }
}
