#!/usr/bin/env python3
"""Trains the mouth network (core/src/speech/mouth_net.rs) on the frames make_data.py wrote:
a fully connected network over each frame's window (the frames at CONTEXT around it), ReLU
between layers, softmax over the seven mouth classes, Adam on cross-entropy, seeded. Voices in
VALIDATION are kept out of the training and choose the epoch; the graded voices
(core/tests/lipsync_mbrola.rs) are not in the data at all.

    python3 scripts/mouth_net/train.py --data /tmp/mouth-data --out core/src/speech/mouth_net.bin \
        --epochs 8 --hidden 128 --dropout 0.3 --closed-weight 2

(the committed weights: make_data.py's seed 1, these settings, seed 7; the validation voices'
frames, all of them and argmax without decoding, were 73.3% right at the epoch kept, 4).

The network that reads the sound alone (core/src/speech/mouth_net_sound.bin) is trained on
frames written without the recogniser (make_data.py's sounds, `mouth_frames --sound-only`):

    python3 scripts/mouth_net/train.py --data /tmp/mouth-data/sound-only \
        --out core/src/speech/mouth_net_sound.bin --sound-only \
        --epochs 8 --hidden 256 128 --dropout 0.3 --closed-weight 2

(validation 74.2% at the epoch kept, 6; one hidden layer of 128: 72.6%, of 256: 73.2%).

Its partner (core/src/speech/mouth_net_sound_real.bin; the product averages the two networks'
probabilities) also reads recorded Russian (make_data.py --recorded-russian), each sentence
as recorded only, not warped:

    python3 scripts/mouth_net/train.py --data /tmp/mouth-data/sound-only \
        --out core/src/speech/mouth_net_sound_real.bin --sound-only \
        --epochs 5 --hidden 512 256 --dropout 0.3 --closed-weight 2 --unwarped rufest

(validation 76.8% at the epoch kept, 5, with the Russian validation sentences among the
voices: ruval 84.0%, the six synthetic voices 67.1-80.1%; docs/align.md, "Real speech in the
training", has the choice and the graded figures).
Each sound's frames are read as it is and with its mel bands warped by 0.9 and 1.1 (more
vocal tracts); only the unwarped frames of the validation voices are scored.
"""

import argparse
import pathlib
import struct

import numpy as np

CONTEXT = [-10, -8, -6, -4, -2, 0, 2, 4, 6, 8, 10]  # as mouth_net.rs
CLASSES = 7
VALIDATION = {"us3", "de6", "mx1", "it4", "fr7", "br2", "ruval"}


FEATURES = 26  # cepstra and deltas per frame; the recogniser's class (CLASSES one-hot) follows


def load(data, sound_only=False, unwarped=()):
    sets = {"train": [], "valid": []}
    for f in sorted((data / "frames").glob("*.csv*")):
        if f.name.split("-")[0] in unwarped and not f.name.endswith(".csv"):
            continue
        rows = np.loadtxt(f, delimiter=",", dtype=np.float32, ndmin=2)
        y, base = rows[:, 0].astype(np.int64), rows[:, 1:]
        if sound_only:
            base = base[:, :FEATURES]
        idx = np.clip(np.arange(len(base))[:, None] + np.array(CONTEXT)[None, :], 0, len(base) - 1)
        x = base[idx].reshape(len(base), -1)
        voice = f.name.split("-")[0]
        if voice in VALIDATION:
            if f.name.endswith(".csv"):
                sets["valid"].append((x, y))
                sets.setdefault(f"valid {voice}", []).append((x, y))
        else:
            sets["train"].append((x, y))
    return {k: (np.concatenate([x for x, _ in v]), np.concatenate([y for _, y in v]))
            for k, v in sets.items()}


def forward(params, x, rng=None, dropout=0.0):
    acts = [x]
    for i, (w, b) in enumerate(params):
        z = acts[-1] @ w.T + b
        if i + 1 < len(params):
            z = np.maximum(z, 0)
            if dropout:
                z = z * (rng.random(z.shape) >= dropout) / (1 - dropout)
        acts.append(z)
    return acts


def log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def accuracy(params, x, y):
    return float((forward(params, x)[-1].argmax(axis=1) == y).mean())


def read_weights(path):
    """A network written by this script (mouth_net.rs reads the same file)."""
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"NPCMOUTH", path
    (layers,), at, params = struct.unpack_from("<I", data, 8), 12, []
    for _ in range(layers):
        inputs, outputs = struct.unpack_from("<II", data, at)
        at += 8
        w = np.frombuffer(data, "<f4", inputs * outputs, at).reshape(outputs, inputs)
        at += 4 * inputs * outputs
        b = np.frombuffer(data, "<f4", outputs, at)
        at += 4 * outputs
        params.append((w, b))
    return params


def by_voice(params, sets):
    """Validation accuracy of each validation voice."""
    return ", ".join(f"{k[6:]} {accuracy(params, *v):.3f}" for k, v in sorted(sets.items())
                     if k.startswith("valid "))


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--data", required=True)
    a.add_argument("--out", required=True)
    a.add_argument("--hidden", type=int, nargs="*", default=[96])
    a.add_argument("--epochs", type=int, default=20)
    a.add_argument("--seed", type=int, default=7)
    a.add_argument("--decay", type=float, default=1e-4)
    a.add_argument("--noise", type=float, default=0.0, help="Gaussian noise on the inputs, std")
    a.add_argument("--dropout", type=float, default=0.0, help="of the hidden units")
    a.add_argument("--closed-weight", type=float, default=1.0,
                   help="of a closed frame in the loss, against 1 for the others")
    a.add_argument("--sound-only", action="store_true",
                   help="read the sound alone, without the recogniser's class")
    a.add_argument("--unwarped", nargs="*", default=[],
                   help="voices whose frames are read only as recorded, not warped")
    a.add_argument("--score", help="print this network's validation accuracy and stop")
    args = a.parse_args()
    rng = np.random.default_rng(args.seed)
    sets = load(pathlib.Path(args.data), args.sound_only, set(args.unwarped))
    if args.score:
        params = read_weights(args.score)
        print(f"{args.score}: validation {accuracy(params, *sets['valid']):.3f} ({by_voice(params, sets)})")
        return
    (xt, yt), (xv, yv) = sets["train"], sets["valid"]
    print(f"train {len(yt)} frames, validation {len(yv)} frames ({sorted(VALIDATION)})")
    print("class shares (train):", np.bincount(yt, minlength=CLASSES) / len(yt))
    sizes = [xt.shape[1], *args.hidden, CLASSES]
    params = [(rng.normal(0, np.sqrt(2 / i), (o, i)).astype(np.float32), np.zeros(o, np.float32))
              for i, o in zip(sizes[:-1], sizes[1:])]
    m = [(np.zeros_like(w), np.zeros_like(b)) for w, b in params]
    v = [(np.zeros_like(w), np.zeros_like(b)) for w, b in params]
    lr, b1, b2, decay, batch, step = 1e-3, 0.9, 0.999, args.decay, 256, 0
    best = (-1.0, None, 0)
    for epoch in range(args.epochs):
        order = rng.permutation(len(yt))
        for s in range(0, len(order), batch):
            ix = order[s:s + batch]
            xb = xt[ix]
            if args.noise:
                xb = xb + rng.normal(0, args.noise, xb.shape).astype(np.float32)
            acts = forward(params, xb, rng, args.dropout)
            grad = np.exp(log_softmax(acts[-1]))
            grad[np.arange(len(ix)), yt[ix]] -= 1
            weight = np.where(yt[ix] == 1, args.closed_weight, 1.0).astype(np.float32)
            grad *= weight[:, None] / weight.sum()
            step += 1
            for k in reversed(range(len(params))):
                w, b = params[k]
                gw = grad.T @ acts[k] + decay * w
                gb = grad.sum(axis=0)
                if k > 0:
                    grad = (grad @ w) * (acts[k] > 0)
                for j, g in enumerate((gw, gb)):
                    m[k][j][...] = b1 * m[k][j] + (1 - b1) * g
                    v[k][j][...] = b2 * v[k][j] + (1 - b2) * g * g
                    mh = m[k][j] / (1 - b1 ** step)
                    vh = v[k][j] / (1 - b2 ** step)
                    params[k][j][...] -= lr * mh / (np.sqrt(vh) + 1e-8)
        acc_t, acc_v = accuracy(params, xt, yt), accuracy(params, xv, yv)
        print(f"epoch {epoch + 1}: train {acc_t:.3f}, validation {acc_v:.3f} ({by_voice(params, sets)})")
        if acc_v > best[0]:
            best = (acc_v, [(w.copy(), b.copy()) for w, b in params], epoch + 1)
    acc_v, params, epoch = best
    print(f"kept epoch {epoch}: validation {acc_v:.3f} of frames (argmax, no decoding)")
    out = bytearray(b"NPCMOUTH" + struct.pack("<I", len(params)))
    for w, b in params:
        out += struct.pack("<II", w.shape[1], w.shape[0])
        out += w.astype("<f4").tobytes() + b.astype("<f4").tobytes()
    pathlib.Path(args.out).write_bytes(bytes(out))
    print(f"wrote {args.out} ({len(out)} bytes)")


if __name__ == "__main__":
    main()
