//! `npc-player bake`: the shared face animator over a line, every stage as JSON. With
//! `--project P --npc ID` the line is baked as that NPC performs it live: its voice, the
//! project's face settings and the NPC's face seed.

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use npc_core::LineCue;
use npc_core::agent::cues::GestureCue;
use npc_core::anim::OwnShapes;
use npc_core::anim::emotion::Emotion;
use npc_core::anim::face::FaceSettings;
use npc_core::anim::timeline::{self, BakeOptions, BakeReport};
use npc_core::asset::Asset;
use npc_core::body::{AvatarRig, BodyBake, BodyBakeOptions, ClipLibrary, bake_body};
use npc_core::project::{Npc, Project};

use clap::ArgGroup;

use super::voice::VoiceArgs;
use crate::output::{write_atomically, write_wav};
use crate::plot;
use npc_core::speech::LineSource;

#[derive(Debug, clap::Args)]
#[command(group(ArgGroup::new("source").required(true).args(["visemes", "text", "audio"])))]
pub(super) struct BakeArgs {
    /// Viseme events as JSON: [{"id": 21, "offset_ms": 120}, ...].
    #[arg(long, value_name = "FILE")]
    pub(super) visemes: Option<PathBuf>,
    /// A line of text to speak with the offline engine; its audio is written beside --out
    /// (`out.json` -> `out.wav`) or to --audio-out.
    #[arg(long, value_name = "TEXT")]
    pub(super) text: Option<String>,
    /// Where to write the spoken line's audio (with --text).
    #[arg(long, value_name = "FILE.wav", requires = "text")]
    pub(super) audio_out: Option<PathBuf>,
    #[command(flatten)]
    pub(super) voice: VoiceArgs,
    /// A recorded line (WAV) to lip-sync from its sound alone, or with --transcript from its
    /// script aligned to the sound.
    #[arg(long, value_name = "FILE.wav")]
    pub(super) audio: Option<PathBuf>,
    /// What the recording says: its phones are aligned to the sound (docs/align.md).
    #[arg(
        long,
        value_name = "TEXT",
        requires = "audio",
        conflicts_with = "transcript_file"
    )]
    pub(super) transcript: Option<String>,
    /// ... or a file holding it.
    #[arg(long, value_name = "FILE", requires = "audio")]
    pub(super) transcript_file: Option<PathBuf>,
    /// Project file whose face settings (viseme table, lip sync, gaze, blink) to use.
    #[arg(long, value_name = "FILE")]
    pub(super) project: Option<PathBuf>,
    /// Bake as this NPC of the project performs the line live: its voice and its face seed.
    #[arg(long, value_name = "ID", requires = "project")]
    pub(super) npc: Option<String>,
    /// Also bake the NPC's body (every layer's rotation of each humanoid bone, per frame).
    #[arg(long, requires = "npc")]
    pub(super) body: bool,
    /// Frames per second of the bake.
    #[arg(long, default_value_t = 60.0)]
    pub(super) fps: f64,
    /// Seed for gaze and blinks (default: the NPC's face seed with --npc, else 0); the same
    /// seed gives the same bytes.
    #[arg(long)]
    pub(super) seed: Option<u64>,
    /// The emotion the line is spoken in, with its intensity 0-1 (e.g. "happy" or
    /// "happy:0.5"): on the face, and in the body's gesture size with --body.
    #[arg(long, value_name = "NAME[:INTENSITY]", value_parser = parse_emotion)]
    pub(super) emotion: Option<(Emotion, f32)>,
    /// A gesture asked for with the line, as an agent asks (repeatable): NAME[@TARGET][:WORD],
    /// e.g. "shrug:3" (at the fourth word), "point@player" or a clip of the avatar's by name
    /// ("Standing Greeting:1"); in the body with --body.
    #[arg(long = "gesture", value_name = "NAME[@TARGET][:WORD]", value_parser = GestureCue::parse, requires = "body")]
    pub(super) gestures: Vec<GestureCue>,
    /// Whether the face is speaking (gaze looks away more) or listening.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub(super) speaking: bool,
    /// Where to write the JSON ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    pub(super) out: PathBuf,
    /// Also print a text chart of the final weights of a few targets.
    #[arg(long)]
    pub(super) plot: bool,
}

/// Runs the bake command.
pub(super) fn run(args: &BakeArgs) -> anyhow::Result<()> {
    let project = match &args.project {
        Some(path) => Some(Project::load(path)?),
        None => None,
    };
    let npc = match (&args.npc, &project) {
        (Some(id), Some(project)) => Some(find_npc(project, id)?),
        (Some(_), None) => bail!("--npc needs --project (the NPC is one of the project's roster)"),
        (None, _) => None,
    };
    let settings = match (&project, npc) {
        (Some(p), Some(npc)) => p.face_settings(&npc.id).clone(),
        (Some(p), None) => p.face.clone(),
        (None, _) => FaceSettings::default(),
    };
    let seed = match (args.seed, &project, npc) {
        (Some(seed), _, _) => seed,
        (None, Some(project), Some(npc)) => project.face_seed(&npc.id),
        (None, _, _) => 0,
    };
    let voice = npc.map_or_else(|| args.voice.voice(), |n| n.voice.clone());
    let (line, audio) = read_source(args, &voice)?;
    let cue = line.cue;
    // The NPC's body plays its clips over the same frames: what they do to the face (a VRM
    // animation's expressions and look) is in the face's bake, as the player plays it.
    let body = match (&project, npc, &args.project) {
        (Some(project), Some(npc), Some(path)) => {
            let last_ms = timeline::frame_times(args.fps, cue.baked_ms())?
                .last()
                .copied()
                .unwrap_or(0.0);
            let baked = bake_body_of(
                project,
                path,
                npc,
                &BodyBakeOptions {
                    fps: args.fps,
                    duration_ms: last_ms,
                    talking_ms: cue.baked_ms() - npc_core::TAIL_MS,
                    seed,
                    line: Some(cue.clone()),
                    emotion: args.emotion,
                    gestures: args.gestures.clone(),
                },
            );
            match baked {
                Ok(body) => Some(body),
                Err(e) if args.body => return Err(e),
                Err(e) => {
                    tracing::warn!(
                        "{}: {e:#}; the face is baked without its body's clips",
                        npc.id
                    );
                    None
                }
            }
        }
        _ => None,
    };
    let options = BakeOptions {
        fps: args.fps,
        seed,
        speaking: args.speaking,
        duration_ms: None,
        emotion: args.emotion,
        clip_faces: body.as_ref().map(|b| b.faces.clone()).unwrap_or_default(),
    };
    let shapes = match (&project, npc, &args.project) {
        (Some(_), Some(npc), Some(path)) => own_shapes_of(path, npc),
        _ => OwnShapes::default(),
    };
    let bake = timeline::bake_with_shapes(&settings, &shapes, &cue, &options)?;
    let mut report = BakeReport::new(&bake, &cue.track, &settings.table, &options);
    report.audio = audio.as_ref().map(|p| p.display().to_string());
    report.npc = npc.map(|n| n.id.clone());
    if args.body {
        report.body = body;
    }
    let json = serde_json::to_vec(&report).context("could not encode the bake as JSON")?;
    write_atomically(&args.out, &json)?;
    if args.plot {
        print_chart(&bake, &cue, &settings, &report, args);
    }
    Ok(())
}

/// The body of `npc` over the bake's frames, as the player builds it: its avatar, humanoid
/// map, clips (own or retargeted) and body settings.
fn bake_body_of(
    project: &Project,
    project_file: &Path,
    npc: &Npc,
    options: &BodyBakeOptions,
) -> anyhow::Result<BodyBake> {
    let path = Project::resolve(project_file, &npc.avatar.body);
    let asset = Asset::load(&path).with_context(|| {
        format!(
            "--body: cannot load the body of {} ({})",
            npc.id,
            path.display()
        )
    })?;
    let clip_files: Vec<_> = npc
        .avatar
        .clips
        .iter()
        .flat_map(|files| files.iter())
        .map(|p| Project::resolve(project_file, p))
        .collect();
    let rig = AvatarRig::load(
        &asset,
        &npc.avatar.bones,
        &clip_files,
        &mut ClipLibrary::default(),
    )
    .with_context(|| format!("--body: cannot load the clips of {}", npc.id))?;
    let settings = project.body_settings(&npc.id);
    let (spring_bones, problems) = npc_core::body::avatar_springs(
        &asset.spring_bones,
        npc.avatar.springs.as_ref(),
        &rig.skeleton,
    );
    for problem in problems {
        tracing::warn!("{}: avatar.{problem}", npc.id);
    }
    let springs = npc_core::body::spring::SpringRig::new(&spring_bones, &rig.skeleton);
    let bake = bake_body(
        &rig.skeleton,
        &rig.map,
        &springs,
        rig.clips.source(&asset.clips, settings),
        settings,
        options,
    );
    for w in &bake.warnings {
        tracing::warn!("{}: {w}", npc.id);
    }
    Ok(bake)
}

/// The own shapes `npc`'s face plays (its `avatar.shapes`, or a starting table for a known
/// set), as the player finds them; none when its face file cannot be read.
fn own_shapes_of(project_file: &Path, npc: &Npc) -> OwnShapes {
    let face = npc.avatar.head.as_ref().unwrap_or(&npc.avatar.body);
    let path = Project::resolve(project_file, face);
    match Asset::load(&path) {
        Ok(asset) => OwnShapes::for_asset(npc.avatar.shapes.as_ref(), &asset).1,
        Err(e) => {
            tracing::warn!(
                "{}: its face {} cannot be read ({e}); baked without its own shapes",
                npc.id,
                path.display()
            );
            OwnShapes::default()
        }
    }
}

fn find_npc<'a>(project: &'a Project, id: &str) -> anyhow::Result<&'a Npc> {
    project.npcs.iter().find(|n| n.id == id).ok_or_else(|| {
        let ids: Vec<&str> = project.npcs.iter().map(|n| n.id.as_str()).collect();
        anyhow!(
            "--npc {id}: no such NPC in the project (its roster: {})",
            if ids.is_empty() {
                "empty".to_owned()
            } else {
                ids.join(", ")
            }
        )
    })
}

fn print_chart(
    bake: &timeline::Bake,
    cue: &LineCue,
    settings: &FaceSettings,
    report: &BakeReport<'_>,
    args: &BakeArgs,
) {
    let track = &cue.track;
    let closures = track.events().iter().filter(|e| e.id.is_bilabial()).count();
    println!(
        "baked {} frames at {} fps ({:.0} ms, {} visemes, {} lip closures) into {}",
        bake.frames.len(),
        args.fps,
        report.duration_ms,
        track.events().len(),
        closures,
        args.out.display()
    );
    print!(
        "{}",
        plot::strip_chart(bake, track, settings.lipsync.lead_ms, 100)
    );
}

/// The line to bake and the WAV that goes with it.
fn read_source(
    args: &BakeArgs,
    voice: &npc_core::project::Voice,
) -> anyhow::Result<(LineSource, Option<PathBuf>)> {
    if let Some(path) = &args.visemes {
        Ok((LineSource::from_visemes(path)?, None))
    } else if let Some(text) = &args.text {
        let wav_path = audio_path(&args.out, args.audio_out.as_deref())?;
        let line = LineSource::from_text(text, voice)?;
        if let (Some(wav_path), Some(utterance)) = (&wav_path, &line.utterance) {
            write_wav(wav_path, utterance)?;
        }
        Ok((line, wav_path))
    } else if let Some(path) = &args.audio {
        let script = match (&args.transcript, &args.transcript_file) {
            (Some(t), _) => Some(t.clone()),
            (None, Some(file)) => Some(
                std::fs::read_to_string(file)
                    .with_context(|| format!("cannot read the transcript {}", file.display()))?,
            ),
            (None, None) => None,
        };
        let line = match script {
            Some(s) if s.trim().is_empty() => bail!("the transcript is empty"),
            Some(s) => LineSource::from_wav_and_script(path, &s, voice)?,
            None => LineSource::from_wav(path, &voice.language)?,
        };
        Ok((line, Some(path.clone())))
    } else {
        bail!("give --visemes FILE, --text TEXT or --audio FILE.wav")
    }
}

/// Where a spoken line's audio goes: `audio_out`, else beside the bake's JSON (`out.json` ->
/// `out.wav`; none for stdout). An `--out` that is itself a WAV would have the JSON written
/// over the audio: refused, with what to do.
fn audio_path(out: &Path, audio_out: Option<&Path>) -> anyhow::Result<Option<PathBuf>> {
    if let Some(path) = audio_out {
        if path == out {
            bail!(
                "--audio-out and --out are the same file {}: give each its own",
                out.display()
            );
        }
        return Ok(Some(path.to_owned()));
    }
    if out == Path::new("-") {
        return Ok(None);
    }
    let wav = out.with_extension("wav");
    if wav == out {
        bail!(
            "--out {} ends in .wav, where the line's audio would go: name the bake's JSON \
             FILE.json (the audio is written beside it as FILE.wav), or give --audio-out",
            out.display()
        );
    }
    Ok(Some(wav))
}

/// Reads `NAME` or `NAME:INTENSITY` as an emotion.
fn parse_emotion(text: &str) -> Result<(Emotion, f32), String> {
    let (name, intensity) = match text.split_once(':') {
        Some((name, i)) => (
            name,
            i.trim()
                .parse::<f32>()
                .ok()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| format!("intensity {i:?} is not a number from 0 to 1"))?,
        ),
        None => (text, 1.0),
    };
    let known: Vec<&str> = Emotion::ALL.iter().map(|e| e.name()).collect();
    Emotion::from_name(name.trim())
        .map(|e| (e, intensity))
        .ok_or_else(|| format!("unknown emotion {name:?}; known: {}", known.join(", ")))
}
