//! `avatar.clips`: one clip file (`Some("clips/Idle.fbx")`) or several
//! (`Some(["clips/Idle.fbx", "clips/Walking.fbx"])`), each clip played by its role (idle, walk,
//! talk: a name that holds it, or a Mixamo file's name).

use std::fmt;
use std::ops::Deref;
use std::path::PathBuf;

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The files an avatar's clips come from, in the order the project names them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClipFiles(pub Vec<PathBuf>);

impl ClipFiles {
    /// One file.
    #[must_use]
    pub fn one(path: impl Into<PathBuf>) -> Self {
        Self(vec![path.into()])
    }

    /// The files of a comma-separated list as a person types it ("clips/Idle.fbx,
    /// clips/Walking.fbx"); none for an empty one.
    #[must_use]
    pub fn from_list(text: &str) -> Option<Self> {
        let files: Vec<PathBuf> = text
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(PathBuf::from)
            .collect();
        (!files.is_empty()).then_some(Self(files))
    }

    /// The files as a comma-separated list ([`Self::from_list`] reads it back).
    #[must_use]
    pub fn to_list(&self) -> String {
        let names: Vec<String> = self.0.iter().map(|p| p.display().to_string()).collect();
        names.join(", ")
    }
}

impl Deref for ClipFiles {
    type Target = [PathBuf];

    fn deref(&self) -> &[PathBuf] {
        &self.0
    }
}

impl Serialize for ClipFiles {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => one.serialize(serializer),
            many => many.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ClipFiles {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FilesVisitor)
    }
}

struct FilesVisitor;

impl<'de> Visitor<'de> for FilesVisitor {
    type Value = ClipFiles;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a clip file (\"clips/Idle.fbx\") or a list of them")
    }

    fn visit_str<E: de::Error>(self, path: &str) -> Result<ClipFiles, E> {
        Ok(ClipFiles::one(path))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ClipFiles, A::Error> {
        let mut files = Vec::new();
        while let Some(path) = seq.next_element::<PathBuf>()? {
            files.push(path);
        }
        if files.is_empty() {
            return Err(de::Error::custom(
                "an empty list of clip files (leave `clips` out for the body's own)",
            ));
        }
        Ok(ClipFiles(files))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Holder {
        clips: Option<ClipFiles>,
    }

    #[test]
    fn one_file_or_a_list_reads_and_writes_back_as_written() {
        for text in [
            r#"(clips:Some("clips/Idle.fbx"))"#,
            r#"(clips:Some(["clips/Idle.fbx","clips/Walking.fbx"]))"#,
            "(clips:None)",
        ] {
            let holder: Holder = ron::from_str(text).unwrap();
            assert_eq!(ron::to_string(&holder).unwrap(), text);
        }
        let two: Holder = ron::from_str(r#"(clips: Some(["a.fbx", "b.glb"]))"#).unwrap();
        assert_eq!(
            two.clips.unwrap().to_vec(),
            vec![PathBuf::from("a.fbx"), PathBuf::from("b.glb")]
        );
    }

    #[test]
    fn a_typed_list_reads_back_as_written_and_an_empty_one_is_none() {
        let files = ClipFiles::from_list(" clips/Idle.fbx,clips/Walking.fbx , ").unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files.to_list(), "clips/Idle.fbx, clips/Walking.fbx");
        assert_eq!(ClipFiles::from_list(&files.to_list()), Some(files));
        assert_eq!(ClipFiles::from_list(" , "), None);
    }

    #[test]
    fn an_empty_list_or_a_number_is_refused_with_what_is_expected() {
        let empty = ron::from_str::<Holder>("(clips: Some([]))").unwrap_err();
        assert!(empty.to_string().contains("empty list"), "{empty}");
        let number = ron::from_str::<Holder>("(clips: Some(3))").unwrap_err();
        assert!(number.to_string().contains("clip file"), "{number}");
    }
}
