//! Letters a voice of the offline engine cannot read. espeak-ng reads Chinese characters only
//! in its Chinese voices; every other voice, Japanese too (it reads kana, not kanji), names
//! each one in English instead ("Chinese letter"), so the NPC says nonsense.

/// Why the offline engine's voice of `language` (BCP 47) will not read `text` as written, in
/// words, or None when it will.
#[must_use]
pub fn unreadable_letters(language: &str, text: &str) -> Option<String> {
    let primary = language.split(['-', '_']).next().unwrap_or("");
    let chinese = ["zh", "cmn", "yue", "hak"]
        .iter()
        .any(|c| primary.eq_ignore_ascii_case(c));
    let ideographs = text.chars().filter(|&c| is_ideograph(c)).count();
    if chinese || ideographs == 0 {
        return None;
    }
    let advice = if primary.eq_ignore_ascii_case("ja") {
        "write Japanese lines in kana"
    } else {
        "write the line in the voice's own letters"
    };
    Some(format!(
        "the line has {ideographs} Chinese character(s) the offline voice of {language:?} cannot \
         read (espeak-ng names each in English instead): {advice}"
    ))
}

/// A CJK unified ideograph (kanji, hanzi, hanja).
fn is_ideograph(c: char) -> bool {
    matches!(
        u32::from(c),
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x2_0000..=0x3_134F
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kanji_outside_a_chinese_voice_are_named() {
        let why =
            unreadable_letters("ja-JP", "水をマレーシアから買わなくてはならない").expect("kanji");
        assert!(why.contains("2 Chinese") && why.contains("kana"), "{why}");
        assert_eq!(unreadable_letters("ja-JP", "みずをマレーシアから"), None);
        assert_eq!(unreadable_letters("cmn", "你好"), None);
        assert_eq!(unreadable_letters("zh-CN", "你好"), None);
        assert!(unreadable_letters("en-US", "Hello 你好").is_some());
        assert_eq!(unreadable_letters("en-US", "Hello"), None);
    }
}
