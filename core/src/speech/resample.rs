//! A recording brought to another sample rate (band-limited, by rubato's FFT resampler), for
//! an analysis made for one rate.

use rubato::{FftFixedIn, Resampler as _};

/// The resampler takes the sound in blocks of this many samples.
const BLOCK: usize = 1024;

/// `samples` at `from` Hz, resampled to `to` Hz: the same sound, as long, with nothing above
/// the lower rate's Nyquist frequency.
///
/// # Errors
/// A rate of zero (rubato's reason).
pub fn resample(samples: &[f32], from: u32, to: u32) -> Result<Vec<f32>, String> {
    if from == to {
        return Ok(samples.to_vec());
    }
    let err = |e: &dyn std::fmt::Display| format!("resampling {from} Hz to {to} Hz: {e}");
    let mut resampler =
        FftFixedIn::<f32>::new(from as usize, to as usize, BLOCK, 2, 1).map_err(|e| err(&e))?;
    let wanted = ((samples.len() as f64 * f64::from(to) / f64::from(from)).round()) as usize;
    let delay = resampler.output_delay();
    let mut out: Vec<f32> = Vec::with_capacity(wanted + delay + BLOCK);
    let mut rest = samples;
    while rest.len() >= resampler.input_frames_next() {
        let (block, after) = rest.split_at(resampler.input_frames_next());
        let produced = resampler.process(&[block], None).map_err(|e| err(&e))?;
        out.extend_from_slice(&produced[0]);
        rest = after;
    }
    // The last samples, then silence until the resampler's delay has passed through.
    let produced = resampler
        .process_partial(Some(&[rest]), None)
        .map_err(|e| err(&e))?;
    out.extend_from_slice(&produced[0]);
    while out.len() < wanted + delay {
        let produced = resampler
            .process_partial::<&[f32]>(None, None)
            .map_err(|e| err(&e))?;
        out.extend_from_slice(&produced[0]);
    }
    Ok(out[delay..delay + wanted].to_vec())
}

/// A live stream brought to another rate block by block (a microphone to the voice
/// detector's 16 kHz): the output lags the input by the resampler's delay, a few ms.
pub struct StreamResampler {
    inner: Option<FftFixedIn<f32>>,
    pending: Vec<f32>,
}

impl std::fmt::Debug for StreamResampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamResampler")
            .field("resampling", &self.inner.is_some())
            .finish_non_exhaustive()
    }
}

impl StreamResampler {
    /// From `from` Hz to `to` Hz, in blocks of 10 ms of input.
    ///
    /// # Errors
    /// A rate of zero.
    pub fn new(from: u32, to: u32) -> Result<Self, String> {
        let inner = if from == to {
            None
        } else {
            let block = (from as usize / 100).max(16);
            Some(
                FftFixedIn::<f32>::new(from as usize, to as usize, block, 2, 1)
                    .map_err(|e| format!("resampling {from} Hz to {to} Hz: {e}"))?,
            )
        };
        Ok(Self {
            inner,
            pending: Vec::new(),
        })
    }

    /// Takes `samples`, appending what is ready at the new rate to `out`.
    pub fn push(&mut self, samples: &[f32], out: &mut Vec<f32>) {
        let Some(resampler) = self.inner.as_mut() else {
            out.extend_from_slice(samples);
            return;
        };
        self.pending.extend_from_slice(samples);
        let mut used = 0;
        while self.pending.len() - used >= resampler.input_frames_next() {
            let n = resampler.input_frames_next();
            match resampler.process(&[&self.pending[used..used + n]], None) {
                Ok(produced) => out.extend_from_slice(&produced[0]),
                Err(e) => tracing::warn!("resampling the microphone: {e}"),
            }
            used += n;
        }
        self.pending.drain(..used);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::speech::test_sounds::tone;

    #[test]
    fn a_tone_keeps_its_pitch_phase_and_length() {
        let from = tone(440.0, 22_050, 1.3);
        let out = resample(&from, 22_050, 16_000).unwrap();
        let truth = tone(440.0, 16_000, 1.3);
        assert_eq!(
            out.len(),
            (from.len() as f64 * 16_000.0 / 22_050.0).round() as usize
        );
        // Away from the ends, sample for sample the tone sampled at 16 kHz: not shifted.
        let worst = out[200..out.len() - 200]
            .iter()
            .zip(&truth[200..truth.len() - 200])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0_f32, f32::max);
        assert!(worst < 0.01, "{worst}");
    }

    #[test]
    fn what_the_lower_rate_cannot_hold_is_removed() {
        // 10 kHz is above 16 kHz's Nyquist frequency: it must not fold back as 6 kHz.
        let out = resample(&tone(10_000.0, 44_100, 0.5), 44_100, 16_000).unwrap();
        let rms = (out.iter().map(|s| s * s).sum::<f32>() / out.len() as f32).sqrt();
        assert!(rms < 0.01, "{rms}");
    }
}
