//! WAV files (16-bit mono PCM) in and out.

use std::path::Path;

fn mono_spec(sample_rate: u32) -> hound::WavSpec {
    hound::WavSpec {
        channels: 1,
        sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    }
}

/// Writes mono 16-bit PCM.
pub fn write(path: &Path, pcm: &[i16], sample_rate: u32) -> Result<(), hound::Error> {
    let mut writer = hound::WavWriter::create(path, mono_spec(sample_rate))?;
    for &s in pcm {
        writer.write_sample(s)?;
    }
    writer.finalize()
}

/// Mono 16-bit PCM as the bytes of a WAV file (to write atomically).
pub fn to_bytes(pcm: &[i16], sample_rate: u32) -> Result<Vec<u8>, hound::Error> {
    let mut bytes = std::io::Cursor::new(Vec::with_capacity(44 + pcm.len() * 2));
    let mut writer = hound::WavWriter::new(&mut bytes, mono_spec(sample_rate))?;
    for &s in pcm {
        writer.write_sample(s)?;
    }
    writer.finalize()?;
    Ok(bytes.into_inner())
}

/// Reads a WAV file as mono f32 in [-1, 1] (channels averaged) and its sample rate.
pub fn read_mono(path: &Path) -> Result<(Vec<f32>, u32), hound::Error> {
    let mut reader = hound::WavReader::open(path)?;
    let spec = reader.spec();
    let channels = usize::from(spec.channels.max(1));
    let samples: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float => reader.samples::<f32>().collect::<Result<_, _>>()?,
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1_i64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
            reader
                .samples::<i32>()
                .map(|s| s.map(|v| v as f32 * scale))
                .collect::<Result<_, _>>()?
        }
    };
    let mono = samples
        .chunks(channels)
        .map(|frame| frame.iter().sum::<f32>() / frame.len() as f32)
        .collect();
    Ok((mono, spec.sample_rate))
}
