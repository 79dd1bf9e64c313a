//! What an agent may ask of the speaker's body and face with a line: an emotion, gestures
//! (`"point@Mira"`, `"shrug"`, a clip of the speaker's such as `"Waving"`, or `{"name",
//! "target", "word"}`) and whom to look at. A value this version cannot use is dropped with a
//! warning; the line is still spoken.

use serde_json::{Map, Value};

pub use crate::anim::emotion::Emotion;

/// A gesture an agent can ask for: one the body makes itself, or a clip of the speaker's by
/// its name (which only the speaker's clips can say exists).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GestureName {
    Point,
    Shrug,
    Nod,
    Headshake,
    Wave,
    Thinking,
    OpenPalms,
    /// A clip of the speaker's avatar, by name.
    Clip(String),
}

impl GestureName {
    pub const ALL: [Self; 7] = [
        Self::Point,
        Self::Shrug,
        Self::Nod,
        Self::Headshake,
        Self::Wave,
        Self::Thinking,
        Self::OpenPalms,
    ];

    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Self::Point => "point",
            Self::Shrug => "shrug",
            Self::Nod => "nod",
            Self::Headshake => "headshake",
            Self::Wave => "wave",
            Self::Thinking => "thinking",
            Self::OpenPalms => "open_palms",
            Self::Clip(name) => name,
        }
    }

    /// The built-in gesture of this name, else a clip of that name (None: empty).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.trim();
        if name.is_empty() {
            return None;
        }
        Some(
            Self::ALL
                .into_iter()
                .find(|g| g.name() == name)
                .unwrap_or_else(|| Self::Clip(name.to_owned())),
        )
    }

    /// The names of the built-in gestures, comma-separated.
    #[must_use]
    pub fn built_in_names() -> String {
        Self::ALL
            .iter()
            .map(GestureName::name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Whom a line is aimed at: an NPC of the roster (its speaker id) or the player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Npc(String),
    Player,
}

impl Target {
    fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        match s {
            "" => None,
            "player" => Some(Self::Player),
            id => Some(Self::Npc(id.to_owned())),
        }
    }
}

/// One requested gesture.
#[derive(Clone, Debug, PartialEq)]
pub struct GestureCue {
    pub name: GestureName,
    pub target: Option<Target>,
    /// It starts at this word of the line (0 is the first); at the line's start when absent.
    pub word: Option<usize>,
}

impl GestureCue {
    /// Reads the short form `NAME[@TARGET][:WORD]` (`shrug`, `point@Bram`, `nod:3`,
    /// `point@player:2`), as `bake --gesture` takes it and the studio shows it.
    ///
    /// A name that is not built in is a clip's, known only to the speaker's avatar.
    ///
    /// # Errors
    /// An empty name or target or a word that is not a number, said in words.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (name, target, word) = split_short_form(s);
        let word = word
            .map(|w| {
                w.parse::<usize>().map_err(|_| {
                    format!("{s:?}: the word after ':' must be a number (0 is the first)")
                })
            })
            .transpose()?;
        let target = target
            .map(|t| {
                Target::parse(t).ok_or_else(|| format!("{s:?}: the target after '@' is empty"))
            })
            .transpose()?;
        let name = GestureName::from_name(name).ok_or_else(|| {
            format!(
                "{s:?}: no gesture named (built in: {}; or a clip of the avatar's)",
                GestureName::built_in_names()
            )
        })?;
        Ok(Self { name, target, word })
    }
}

/// The parts of the short form `NAME[@TARGET][:WORD]`, trimmed: the name, the target after
/// '@' and the word after the last ':' (as written).
fn split_short_form(s: &str) -> (&str, Option<&str>, Option<&str>) {
    let (rest, word) = match s.rsplit_once(':') {
        Some((rest, word)) => (rest, Some(word.trim())),
        None => (s, None),
    };
    match rest.split_once('@') {
        Some((name, target)) => (name.trim(), Some(target), word),
        None => (rest.trim(), None, word),
    }
}

impl std::fmt::Display for GestureCue {
    /// The short form [`GestureCue::parse`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name.name())?;
        match &self.target {
            Some(Target::Npc(id)) => write!(f, "@{id}")?,
            Some(Target::Player) => f.write_str("@player")?,
            None => {}
        }
        if let Some(w) = self.word {
            write!(f, ":{w}")?;
        }
        Ok(())
    }
}

/// Everything a line asks of its speaker besides the words.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Behaviour {
    /// The emotion and its intensity (0-1).
    pub emotion: Option<(Emotion, f32)>,
    pub gestures: Vec<GestureCue>,
    pub look_at: Option<Target>,
}

impl Behaviour {
    /// Reads `emotion`, `gestures` and `look_at` from a line's fields, leaving them there;
    /// what cannot be used is reported in `warnings` and dropped.
    #[must_use]
    pub fn read(map: &Map<String, Value>, warnings: &mut Vec<String>) -> Self {
        Self {
            emotion: map.get("emotion").and_then(|v| read_emotion(v, warnings)),
            gestures: map
                .get("gestures")
                .map(|v| read_gestures(v, warnings))
                .unwrap_or_default(),
            look_at: match map.get("look_at") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Target::parse(s).or_else(|| {
                    warnings.push("\"look_at\" is empty; ignored".to_owned());
                    None
                }),
                Some(_) => {
                    warnings
                        .push("\"look_at\" must be an NPC's id or \"player\"; ignored".to_owned());
                    None
                }
            },
        }
    }

    /// The NPC ids this behaviour names (targets and the look), for checking against the
    /// roster.
    pub fn named_npcs(&self) -> impl Iterator<Item = &str> {
        self.gestures
            .iter()
            .filter_map(|g| g.target.as_ref())
            .chain(self.look_at.as_ref())
            .filter_map(|t| match t {
                Target::Npc(id) => Some(id.as_str()),
                Target::Player => None,
            })
    }

    /// Drops every target and look naming an NPC `known` does not accept, one warning each.
    pub fn keep_known(&mut self, known: impl Fn(&str) -> bool, warnings: &mut Vec<String>) {
        let unknown = |t: &Option<Target>| matches!(t, Some(Target::Npc(id)) if !known(id));
        self.gestures.retain(|g| {
            let bad = unknown(&g.target);
            if let (true, Some(Target::Npc(id))) = (bad, &g.target) {
                warnings.push(format!(
                    "gesture {}@{id}: no NPC {id} in the world; ignored",
                    g.name.name()
                ));
            }
            !bad
        });
        if unknown(&self.look_at) {
            if let Some(Target::Npc(id)) = &self.look_at {
                warnings.push(format!("\"look_at\": no NPC {id} in the world; ignored"));
            }
            self.look_at = None;
        }
    }
}

fn read_emotion(v: &Value, warnings: &mut Vec<String>) -> Option<(Emotion, f32)> {
    let (name, intensity) = match v {
        Value::Null => return None,
        Value::String(s) => (s.as_str(), 1.0),
        Value::Object(o) => {
            let Some(name) = o.get("name").and_then(Value::as_str) else {
                warnings.push("\"emotion\" needs a \"name\"; ignored".to_owned());
                return None;
            };
            let intensity = match o.get("intensity") {
                None => 1.0,
                Some(i) => match i.as_f64() {
                    Some(x) if (0.0..=1.0).contains(&x) => x as f32,
                    Some(x) => {
                        warnings.push(format!("\"emotion\" intensity {x} is outside 0-1; clamped"));
                        x.clamp(0.0, 1.0) as f32
                    }
                    None => {
                        warnings.push("\"emotion\" intensity must be a number; 1 used".into());
                        1.0
                    }
                },
            };
            (name, intensity)
        }
        _ => {
            warnings.push(
                "\"emotion\" must be a name or {\"name\", \"intensity\"}; ignored".to_owned(),
            );
            return None;
        }
    };
    let emotion = Emotion::from_name(name.trim());
    if emotion.is_none() {
        let known: Vec<&str> = Emotion::ALL.iter().map(|e| e.name()).collect();
        warnings.push(format!(
            "unknown emotion {name:?} (known: {}); ignored",
            known.join(", ")
        ));
    }
    emotion.map(|e| (e, intensity))
}

fn read_gestures(v: &Value, warnings: &mut Vec<String>) -> Vec<GestureCue> {
    let Value::Array(items) = v else {
        warnings.push("\"gestures\" must be an array; ignored".to_owned());
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let (name, target, word) = match item {
            // The short form NAME[@TARGET][:WORD].
            Value::String(s) => {
                let (name, target, word) = split_short_form(s);
                let word = word.and_then(|w| {
                    w.parse::<usize>().ok().or_else(|| {
                        warnings.push(format!(
                            "gesture {s:?}: the word after ':' must be an integer >= 0; it \
                             starts with the line"
                        ));
                        None
                    })
                });
                (name.to_owned(), target.and_then(Target::parse), word)
            }
            Value::Object(o) => {
                let Some(name) = o.get("name").and_then(Value::as_str) else {
                    warnings.push("a gesture needs a \"name\"; ignored".to_owned());
                    continue;
                };
                let target = o
                    .get("target")
                    .and_then(Value::as_str)
                    .and_then(Target::parse);
                let word = match o.get("word") {
                    None | Some(Value::Null) => None,
                    Some(w) => match w.as_u64() {
                        Some(n) => usize::try_from(n).ok(),
                        None => {
                            warnings.push(format!(
                                "gesture {name}: \"word\" must be an integer >= 0; it starts \
                                 with the line"
                            ));
                            None
                        }
                    },
                };
                (name.to_owned(), target, word)
            }
            _ => {
                warnings.push("a gesture must be a name or an object; ignored".to_owned());
                continue;
            }
        };
        let Some(gesture) = GestureName::from_name(&name) else {
            warnings.push(format!(
                "a gesture's name is empty (built in: {}; or a clip of the avatar's); ignored",
                GestureName::built_in_names()
            ));
            continue;
        };
        if gesture == GestureName::Point && target.is_none() {
            warnings
                .push("gesture point needs a target (point@NPC or point@player); ignored".into());
            continue;
        }
        out.push(GestureCue {
            name: gesture,
            target,
            word,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn read(json: &str) -> (Behaviour, Vec<String>) {
        let map: Map<String, Value> = serde_json::from_str(json).unwrap_or_default();
        let mut warnings = Vec::new();
        (Behaviour::read(&map, &mut warnings), warnings)
    }

    #[test]
    fn names_objects_and_targets_are_read() {
        let (b, w) = read(
            r#"{"emotion": {"name": "happy", "intensity": 0.5}, "look_at": "player",
                "gestures": ["point@Mira", "shrug", {"name": "nod", "word": 3}]}"#,
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(b.emotion, Some((Emotion::Happy, 0.5)));
        assert_eq!(b.look_at, Some(Target::Player));
        assert_eq!(b.gestures.len(), 3);
        assert_eq!(b.gestures[0].target, Some(Target::Npc("Mira".into())));
        assert_eq!(b.gestures[2].word, Some(3));
        assert_eq!(b.named_npcs().collect::<Vec<_>>(), ["Mira"]);
    }

    #[test]
    fn what_is_unknown_warns_once_and_the_rest_stays() {
        let (mut b, w) =
            read(r#"{"emotion": "smug", "gestures": [" ", "point", "wave", "point@Zed"]}"#);
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("unknown emotion \"smug\""), "{w:?}");
        assert!(w[1].contains("name is empty"), "{w:?}");
        assert!(w[2].contains("point needs a target"), "{w:?}");
        assert_eq!(b.emotion, None);
        let mut more = Vec::new();
        b.keep_known(|id| id == "Mira", &mut more);
        assert_eq!(
            more,
            ["gesture point@Zed: no NPC Zed in the world; ignored"]
        );
        assert_eq!(b.gestures.len(), 1);
        assert_eq!(b.gestures[0].name, GestureName::Wave);
    }

    #[test]
    fn a_lines_gestures_may_name_their_word_in_the_short_form() {
        let (b, warnings) = read(r#"{"gestures": ["shrug:3", "point@Bram:1", "nod:x"]}"#);
        let words: Vec<Option<usize>> = b.gestures.iter().map(|g| g.word).collect();
        assert_eq!(words, [Some(3), Some(1), None]);
        assert_eq!(b.gestures[1].target, Some(Target::Npc("Bram".to_owned())));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("nod:x"), "{warnings:?}");
    }

    #[test]
    fn the_short_form_round_trips_and_says_what_is_wrong() {
        for text in [
            "shrug",
            "point@Bram",
            "nod:3",
            "point@player:2",
            "open_palms:0",
            "Standing Greeting@player:1",
        ] {
            let cue = GestureCue::parse(text).unwrap();
            assert_eq!(cue.to_string(), text);
        }
        let cue = GestureCue::parse("point@Mira:4").unwrap();
        assert_eq!(cue.name, GestureName::Point);
        assert_eq!(cue.target, Some(Target::Npc("Mira".to_owned())));
        assert_eq!(cue.word, Some(4));
        assert_eq!(
            GestureCue::parse("Jazz Hands:2").unwrap().name,
            GestureName::Clip("Jazz Hands".to_owned())
        );
        assert!(
            GestureCue::parse("@Mira")
                .unwrap_err()
                .contains("no gesture")
        );
        assert!(GestureCue::parse("nod:x").unwrap_err().contains("number"));
        assert!(GestureCue::parse("point@").unwrap_err().contains("empty"));
    }
}
