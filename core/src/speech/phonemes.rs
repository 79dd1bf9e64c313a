//! espeak-ng phoneme mnemonics -> viseme ids. Diphthongs and affricates give two ids, as
//! Azure's viseme events do; r-coloured vowels add the r viseme.

use crate::viseme::VisemeId;

const fn ids<const N: usize>(raw: [u8; N]) -> [VisemeId; N] {
    let mut out = [VisemeId::SILENCE; N];
    let mut i = 0;
    while i < N {
        out[i] = VisemeId::new_or_silence(raw[i]);
        i += 1;
    }
    out
}

/// The visemes for one espeak-ng phoneme (English phoneme set; other languages share most
/// mnemonics). Unknown phonemes map by their first letter: vowels open the mouth a little,
/// consonants take the tongue-tip shape.
#[must_use]
pub fn visemes_for_espeak_phoneme(phoneme: &str) -> &'static [VisemeId] {
    static SILENCE: [VisemeId; 1] = ids([0]);
    static TABLE: &[(&str, &[VisemeId])] = &[
        ("p", &ids([21])),
        ("b", &ids([21])),
        ("m", &ids([21])),
        ("f", &ids([18])),
        ("v", &ids([18])),
        ("T", &ids([19])),
        ("D", &ids([17])),
        ("t", &ids([19])),
        ("d", &ids([19])),
        ("n", &ids([19])),
        ("t#", &ids([19])),
        ("d#", &ids([19])),
        ("n-", &ids([19])),
        ("?", &ids([19])),
        ("t2", &ids([19])),
        ("s", &ids([15])),
        ("z", &ids([15])),
        ("S", &ids([16])),
        ("Z", &ids([16])),
        ("tS", &ids([19, 16])),
        ("dZ", &ids([19, 16])),
        ("k", &ids([20])),
        ("g", &ids([20])),
        ("N", &ids([20])),
        ("x", &ids([20])),
        ("h", &ids([12])),
        ("l", &ids([14])),
        ("l/", &ids([14])),
        ("@L", &ids([1, 14])),
        ("L", &ids([14])),
        ("r", &ids([13])),
        ("r-", &ids([13])),
        ("R", &ids([13])),
        ("*", &ids([19])),
        ("w", &ids([7])),
        ("j", &ids([6])),
        ("a", &ids([1])),
        ("a#", &ids([1])),
        ("aa", &ids([2])),
        ("a2", &ids([1])),
        ("A:", &ids([2])),
        ("A", &ids([2])),
        ("A@", &ids([2, 13])),
        ("0", &ids([2])),
        ("O:", &ids([3])),
        ("O", &ids([3])),
        ("O@", &ids([3, 13])),
        ("o@", &ids([8, 13])),
        ("V", &ids([1])),
        ("@", &ids([1])),
        ("@2", &ids([1])),
        ("@5", &ids([1])),
        ("3:", &ids([5])),
        ("3", &ids([5])),
        ("@r", &ids([5])),
        ("E", &ids([4])),
        ("e", &ids([4])),
        ("e@", &ids([4, 13])),
        ("eI", &ids([4, 6])),
        ("i:", &ids([6])),
        ("i", &ids([6])),
        ("I", &ids([6])),
        ("I2", &ids([6])),
        ("I#", &ids([6])),
        ("i@", &ids([6, 13])),
        ("i@3", &ids([6, 13])),
        ("u:", &ids([7])),
        ("u", &ids([7])),
        ("U", &ids([4])),
        ("U@", &ids([4, 13])),
        ("oU", &ids([8, 4])),
        ("o:", &ids([8])),
        ("o", &ids([8])),
        ("aI", &ids([11])),
        ("aI@", &ids([11, 1])),
        ("aI3", &ids([11, 5])),
        ("aU", &ids([9])),
        ("aU@", &ids([9, 1])),
        ("OI", &ids([10])),
    ];
    static OPEN: [VisemeId; 1] = ids([1]);
    static TONGUE: [VisemeId; 1] = ids([19]);
    let trimmed = phoneme.trim_matches(|c: char| c == '\'' || c == ',' || c == '%' || c == '=');
    if trimmed.is_empty() || trimmed.starts_with('_') {
        return &SILENCE;
    }
    if let Some((_, found)) = TABLE.iter().find(|(name, _)| *name == trimmed) {
        return found;
    }
    match trimmed.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'A' | 'E' | 'I' | 'O' | 'U' | 'V' | '@' | '3' | '0') => {
            &OPEN
        }
        _ => &TONGUE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(p: &str) -> Vec<u8> {
        visemes_for_espeak_phoneme(p)
            .iter()
            .map(|v| v.get())
            .collect()
    }

    #[test]
    fn maps_like_azure() {
        assert_eq!(raw("b"), [21]);
        assert_eq!(raw("m"), [21]);
        assert_eq!(raw("eI"), [4, 6]);
        assert_eq!(raw("oU"), [8, 4]);
        assert_eq!(raw("tS"), [19, 16]);
        assert_eq!(raw("A@"), [2, 13]);
        assert_eq!(raw("u:"), [7]);
        assert_eq!(raw("_:"), [0]);
        assert_eq!(raw("_"), [0]);
        assert_eq!(raw("'E"), [4]);
        assert_eq!(raw("Q9"), [19]);
    }
}
