#!/usr/bin/env python3
"""The mouth network's training data: MBROLA voices that the lip sync is never graded on
speak word sequences drawn from wordfreq's frequency lists (seeded), with every phone's
duration fixed by the phone file espeak-ng writes; every second sound is put in a room
(coloured noise, and the room alone before and after it); `core/examples/mouth_frames.rs` turns each
sound into the frames the network reads, labelled with the class of the phone at each frame.

The graded voices (us1, fr1, de1, es1, tr1, core/tests/lipsync_mbrola.rs) and their sentences
are not used here.

    pip install wordfreq==3.1.1 numpy
    apt-get install mbrola $(python3 scripts/mouth_net/make_data.py --packages)
    cargo build --workspace --example mouth_frames
    python3 scripts/mouth_net/make_data.py --frames-bin $CARGO_TARGET_DIR/debug/examples/mouth_frames --out /tmp/mouth-data

The frames of the network that reads the sound alone are written from the same sounds without
the recogniser, in half a minute:

    mkdir -p /tmp/mouth-data/sound-only/frames
    for k in 0 1; do sed 's#/frames/#/sound-only/frames/#' /tmp/mouth-data/list$k > /tmp/mouth-data/sound-only/list$k
      $CARGO_TARGET_DIR/debug/examples/mouth_frames --sound-only /tmp/mouth-data/sound-only/list$k; done

The second network that reads the sound alone also learns from recorded speech: festvox-ru's
read Russian (scripts/setup.sh's npc_russian_speech, NPC_RUSSIAN_SPEECH), its sentences
321-570 in the voice's order for training (voice "rufest") and 571-620 for validation
("ruval"); sentences 1-320 are kept out for grading:

    python3 scripts/mouth_net/make_data.py --frames-bin $CARGO_TARGET_DIR/debug/examples/mouth_frames \
        --out /tmp/mouth-data --recorded-russian $NPC_RUSSIAN_SPEECH
"""

import argparse
import concurrent.futures
import pathlib
import random
import subprocess
import wave

import numpy as np
import wordfreq

# (MBROLA voice, wordfreq language): none of them a graded voice. Left out: it1 and it2
# (capital letters for their own phone set) and de8 (its schwa is "e"), whose symbols
# MouthClass::of_sampa_in does not read; es4, which lacks many of the diphones espeak-ng asks
# it for (j, jj), and nl1, which lacks most of them.
VOICES = [
    ("en1", "en"), ("us2", "en"), ("us3", "en"),
    ("fr2", "fr"), ("fr3", "fr"), ("fr4", "fr"), ("fr5", "fr"), ("fr6", "fr"), ("fr7", "fr"),
    ("de2", "de"), ("de3", "de"), ("de4", "de"), ("de5", "de"), ("de6", "de"), ("de7", "de"),
    ("es2", "es"), ("mx1", "es"), ("mx2", "es"),
    ("it3", "it"), ("it4", "it"),
    ("pt1", "pt"), ("br1", "pt"), ("br2", "pt"), ("br3", "pt"), ("br4", "pt"),
    ("nl2", "nl"), ("nl3", "nl"),
    ("tr2", "tr"),
]
MBROLA = pathlib.Path("/usr/share/mbrola")
SEQUENCES = 50
WORDS = 9


def words(language, rng):
    common = [w for w in wordfreq.top_n_list(language, 6000) if w.isalpha() and len(w) > 1]
    return [" ".join(rng.choice(common) for _ in range(WORDS)) for _ in range(SEQUENCES)]


def sanitised(pho_text):
    """espeak-ng writes some phones the voices lack (es1/es2's unstressed "o/" and "e/",
    tr1's "l/" and "&"), which MBROLA speaks as silence: the labels would name a vowel where
    the sound is quiet. Each becomes the voice's own phone ("o", "l", "e")."""
    lines = []
    for line in pho_text.splitlines():
        fields = line.split("\t")
        phone = fields[0]
        if phone and phone[0] not in ";#":
            if len(phone) > 1 and phone.endswith("/"):
                phone = phone[:-1]
            fields[0] = "e" if phone == "&" else phone
        lines.append("\t".join(fields))
    return "\n".join(lines) + "\n"


def speak(voice, text, speed, pitch, stem):
    """The sound and its phone file; how many diphones MBROLA still did not have."""
    pho, wav = stem.with_suffix(".pho"), stem.with_suffix(".wav")
    subprocess.run(["espeak-ng", "-v", f"mb-{voice}", "-s", str(speed), "-p", str(pitch), "-q",
                    "--pho", f"--phonout={pho}", text], check=True, capture_output=True)
    pho.write_text(sanitised(pho.read_text()))
    run = subprocess.run(["mbrola", "-e", str(MBROLA / voice / voice), str(pho), str(wav)],
                         check=True, capture_output=True, text=True)
    return wav, pho, run.stderr.count("unknown")


def add_room(wav, pho, rng):
    """Puts the sound in a room: coloured noise at a signal-to-noise ratio of 5-35 dB, with
    0.2-1.2 s of the room alone before it and 0.2-0.8 s after (real recordings open and end
    so; MBROLA's pauses are digital silence). The labels move by the noise before."""
    with wave.open(str(wav)) as w:
        rate, speech = w.getframerate(), np.frombuffer(w.readframes(w.getnframes()), "<i2")
    speech = speech.astype(np.float64)
    before, after = int(rate * rng.uniform(0.2, 1.2)), int(rate * rng.uniform(0.2, 0.8))
    sound = np.concatenate([np.zeros(before), speech, np.zeros(after)])
    noise = np.random.default_rng(rng.randrange(1 << 30)).normal(size=len(sound))
    colour = rng.uniform(0.0, 0.97)  # one-pole low-pass: white to brown-ish
    for i in range(1, len(noise)):
        noise[i] += colour * noise[i - 1]
    level = np.sqrt(np.mean(speech[speech != 0] ** 2)) if speech.any() else 1.0
    snr_db = rng.uniform(5, 35)
    noise *= level / np.sqrt(np.mean(noise ** 2)) / 10 ** (snr_db / 20)
    sound = np.clip(sound + noise, -32768, 32767).astype("<i2")
    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(sound.tobytes())
    text = pho.read_text()
    pho.write_text(f"_ {1000 * before / rate:.1f}\n{text}_ {1000 * after / rate:.1f}\n")


# festvox-ru's sentences (1-based, in the voice's order) trained on and validated on; the
# first 320 are graded (core/tests/lipsync_labelled_speech.rs grades the first 30).
RUSSIAN_TRAINED = range(321, 571)
RUSSIAN_VALIDATION = range(571, 621)


def recorded_russian(voice_dir, frames_bin, out):
    """The sound-alone frames of festvox-ru's sentences trained and validated on."""
    voice_dir = pathlib.Path(voice_dir)
    names = sorted(p.stem for p in (voice_dir / "wav").glob("*.wav"))
    if len(names) != 620:
        raise SystemExit(f"{voice_dir} has {len(names)} sentences, not festvox-ru's 620")
    frames = out / "sound-only" / "frames"
    frames.mkdir(parents=True, exist_ok=True)
    lines = []
    for part, voice in ((RUSSIAN_TRAINED, "rufest"), (RUSSIAN_VALIDATION, "ruval")):
        for n in part:
            name = names[n - 1]
            lines.append(f"{voice_dir / 'wav' / name}.wav {voice_dir / 'lab' / name}.lab "
                         f"{frames / voice}-{name[3:]}.csv ru")
    lists = [out / "sound-only" / f"listru{k}" for k in range(2)]
    for k, path in enumerate(lists):
        path.write_text("\n".join(lines[k::2]) + "\n")
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda p: subprocess.run([frames_bin, "--sound-only", str(p)]), lists))
    if any(r.returncode for r in runs):
        raise SystemExit("mouth_frames failed")
    print(f"{len(lines)} recorded Russian sentences' frames in {frames}")


def main():
    args = argparse.ArgumentParser()
    args.add_argument("--frames-bin")
    args.add_argument("--out")
    args.add_argument("--recorded-russian", metavar="DIR",
                      help="write the frames of festvox-ru's sentences in DIR and stop")
    args.add_argument("--seed", type=int, default=1)
    args.add_argument("--packages", action="store_true", help="print the voices' packages")
    a = args.parse_args()
    if a.packages:
        print(" ".join(f"mbrola-{voice}" for voice, _ in VOICES))
        return
    if not (a.frames_bin and a.out):
        raise SystemExit("--frames-bin and --out are needed")
    out = pathlib.Path(a.out)
    if a.recorded_russian:
        recorded_russian(a.recorded_russian, a.frames_bin, out)
        return
    (out / "sound").mkdir(parents=True, exist_ok=True)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    rng = random.Random(a.seed)
    jobs = []
    for voice, language in VOICES:
        if not (MBROLA / voice / voice).is_file():
            raise SystemExit(f"MBROLA voice {voice} is not installed (apt-get install mbrola-{voice})")
        for i, text in enumerate(words(language, rng)):
            speed, pitch = rng.randint(130, 210), rng.randint(30, 70)
            jobs.append((voice, language, text, speed, pitch, out / "sound" / f"{voice}-{i:02}"))
    lines = []
    unknown = {}
    for k, (voice, language, text, speed, pitch, stem) in enumerate(jobs):
        wav, pho, missing = speak(voice, text, speed, pitch, stem)
        unknown[voice] = unknown.get(voice, 0) + missing
        if k % 2:
            add_room(wav, pho, rng)
        lines.append(f"{wav} {pho} {out / 'frames' / (stem.name + '.csv')} {language}")
    print("diphones the voices lack (spoken as silence):",
          {v: n for v, n in unknown.items() if n})
    halves = [lines[0::2], lines[1::2]]
    for k, half in enumerate(halves):
        (out / f"list{k}").write_text("\n".join(half) + "\n")
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda k: subprocess.run([a.frames_bin, str(out / f"list{k}")]),
                             range(2)))
    if any(r.returncode for r in runs):
        raise SystemExit("mouth_frames failed")
    print(f"{len(lines)} sounds in {out}")


if __name__ == "__main__":
    main()
