use std::collections::HashSet;

pub use crate::stopwords::is_stopword;

/// At most this many distinct terms are kept from one query (the first ones). A task
/// description rarely has more; a pasted log file would otherwise become a query with
/// thousands of OR branches.
pub const MAX_QUERY_TERMS: usize = 64;

/// The fields of a memory its lexical index searches, in the index's order, each with the
/// weight of a match in it (BM25 counts a term `weight` times per occurrence, as FTS5's
/// `bm25()` weights columns). Both stores index these, so they rank alike.
///
/// - The text (content, its CJK characters spaced) and the tags count once.
/// - The summary counts three times. Chosen on SciFact **train**, each abstract's title as
///   its memory's summary (`oro-mem eval` imports a title so), over weights 1 to 8: nDCG@10
///   0.7007 at 1, 0.7042 at 2, 0.7086 at 3, 0.7072 at 4, 0.7060 at 5 (FTS mode). On test,
///   run once after: 0.6850 at 1, 0.6945 at 3.
/// - The files and entities a memory is declared to be about count twice (set, not tuned: no
///   benchmark has them), since a task that names `src/store.rs` or `Store::open` is most
///   likely about the memories that say they are about it.
pub const LEXICAL_FIELDS: [(&str, u32); 5] = [
    ("body", 1),
    ("tags", 1),
    ("summary", 3),
    ("files", 2),
    ("entities", 2),
];

/// The weight of the index's field (column) `field` in [`LEXICAL_FIELDS`]; 1 for a name it
/// does not hold, as FTS5's `bm25()` weighs a column its weights do not name.
///
/// ```
/// use oro_mem_text::field_weight;
/// assert_eq!((field_weight("summary"), field_weight("body"), field_weight("other")), (3, 1, 1));
/// ```
pub fn field_weight(field: &str) -> u32 {
    LEXICAL_FIELDS
        .iter()
        .find(|(name, _)| *name == field)
        .map_or(1, |&(_, w)| w)
}

/// One term of a lexical query ([`query_terms`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A lowercase word of a space-separated script.
    Word(String),
    /// One or two adjacent CJK characters: a bigram of a longer run, or a run of one. An index
    /// built with [`spaced_cjk`] matches it as a phrase of adjacent single characters.
    Cjk(String),
}

impl Term {
    /// The term's text.
    pub fn as_str(&self) -> &str {
        match self {
            Term::Word(w) | Term::Cjk(w) => w,
        }
    }
}

/// A run of text of one kind, as returned by [`segments`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    /// Letters and digits of a script that separates words with spaces.
    Word(&'a str),
    /// A run of CJK characters with no separators in it.
    Cjk(&'a str),
}

/// Whether `text` is negated: true when it holds an odd number of negating words (`not`,
/// `no`, `never`, `without`, a contraction such as `don't`, ...), but for a `not` that names
/// what the statement is said instead of (after a comma or a parenthesis: "Use pnpm, not
/// npm"). Stop words to a search
/// index, they reverse a lesson: "ruff --fix must not run before pyright" and "ruff --fix must
/// run before pyright" score alike by words and mean the opposite, so a duplicate check
/// compares this too ([`same_polarity`]).
pub fn is_negated(text: &str) -> bool {
    // A `not` after a comma or an opening parenthesis names what the statement is said
    // instead of ("Use pnpm, not npm"; "… is `config.toml` (not `config.yaml`)"): the
    // statement itself holds.
    let contrasts = |w: &str| {
        let at = w.as_ptr() as usize - text.as_ptr() as usize;
        w.eq_ignore_ascii_case("not") && text[..at].trim_end().ends_with([',', '('])
    };
    // Words with their apostrophes (straight or curly), so "don't" is one word, and with their
    // hyphens, so that "no-op", `--no-verify` and "opt-out" negate nothing.
    let negations = text
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '\'' | '\u{2019}' | '-')))
        .filter(|w| is_negation(w) && !contrasts(w))
        .count();
    negations % 2 == 1
}

/// Whether `word` (with its apostrophes) negates: `not`, `never`, `without`, `don't`, ...
pub(crate) fn is_negation(word: &str) -> bool {
    const NEGATIONS: &[&str] = &[
        "not", "no", "never", "none", "nothing", "nobody", "nowhere", "neither", "nor", "without",
        "cannot", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "wont", "cant",
        "couldnt", "shouldnt", "wouldnt", "mustnt", "hasnt", "havent", "hadnt", "neednt",
    ];
    let word = word.to_lowercase();
    let bare: String = word
        .chars()
        .filter(|&c| c != '\'' && c != '\u{2019}')
        .collect();
    word.ends_with("n't") || word.ends_with("n\u{2019}t") || NEGATIONS.contains(&bare.as_str())
}

/// True when `a` and `b` are both negated or both not ([`is_negated`]): only then can one be
/// a duplicate of the other.
pub fn same_polarity(a: &str, b: &str) -> bool {
    is_negated(a) == is_negated(b)
}

/// True when `c` shows nothing on its own: whitespace, or a default-ignorable code point
/// (zero-width space and joiners, the byte-order mark, soft hyphen, direction marks,
/// variation selectors, Hangul fillers, tags; Unicode's `Default_Ignorable_Code_Point`).
pub fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'..='\u{1160}'
                | '\u{17B4}'..='\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFF8}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// True when most of `text`'s letters and digits are CJK ([`is_cjk`]): text in a script an
/// English embedding model (all-MiniLM-L6-v2) does not cover, so a cosine with it means
/// nothing.
pub fn is_mostly_cjk(text: &str) -> bool {
    // ASCII holds no CJK character, and most memories are ASCII: one fast scan decides them.
    if text.is_ascii() {
        return false;
    }
    let (mut cjk, mut all) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphanumeric()) {
        all += 1;
        cjk += usize::from(is_cjk(c));
    }
    all > 0 && cjk * 2 > all
}

/// True when `text` shows nothing: empty, or only [invisible](is_invisible) characters.
pub fn is_blank(text: &str) -> bool {
    text.chars().all(is_invisible)
}

/// True for characters of scripts written without spaces between words: Han ideographs,
/// Hiragana, Katakana and Hangul.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x1100..=0x11FF    // Hangul jamo
        | 0x3130..=0x318F    // Hangul compatibility jamo
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9D    // half-width Katakana
        | 0x20000..=0x2FA1F  // CJK extensions B..F, compatibility supplement
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Word,
    Cjk,
    Other,
}

#[inline]
fn class(c: char) -> Class {
    // Most text is ASCII, where no character is CJK: one comparison instead of ten.
    if c.is_ascii() {
        if c.is_ascii_alphanumeric() {
            Class::Word
        } else {
            Class::Other
        }
    } else if is_cjk(c) {
        Class::Cjk
    } else if c.is_alphanumeric() {
        Class::Word
    } else {
        Class::Other
    }
}

/// Splits `text` into word and CJK runs, dropping separators.
///
/// ```
/// use oro_mem_text::{segments, Segment};
/// let s: Vec<_> = segments("SQLite数据库 lock!").collect();
/// assert_eq!(s, [Segment::Word("SQLite"), Segment::Cjk("数据库"), Segment::Word("lock")]);
/// ```
pub fn segments(text: &str) -> impl Iterator<Item = Segment<'_>> {
    let mut rest = text;
    std::iter::from_fn(move || loop {
        let mut chars = rest.char_indices();
        let (_, first) = chars.next()?;
        let kind = class(first);
        let end = chars
            .find(|&(_, c)| class(c) != kind)
            .map_or(rest.len(), |(i, _)| i);
        let (run, tail) = rest.split_at(end);
        rest = tail;
        match kind {
            Class::Word => return Some(Segment::Word(run)),
            Class::Cjk => return Some(Segment::Cjk(run)),
            Class::Other => continue,
        }
    })
}

/// Words of `text`: alphabetic words whole, CJK text one character per word.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    segments(text).flat_map(|s| {
        let (run, split) = match s {
            Segment::Word(w) => (w, false),
            Segment::Cjk(c) => (c, true),
        };
        let mut rest = run;
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let end = if split {
                rest.chars().next().map_or(rest.len(), char::len_utf8)
            } else {
                rest.len()
            };
            let (w, tail) = rest.split_at(end);
            rest = tail;
            Some(w)
        })
    })
}

/// Rewrites `text` so a `unicode61` tokenizer sees one token per CJK character.
///
/// Returns `None` when `text` has no CJK characters, i.e. when it can be indexed as it is.
pub fn spaced_cjk(text: &str) -> Option<String> {
    if !text.chars().any(is_cjk) {
        return None;
    }
    let mut out = String::with_capacity(text.len() * 2);
    let mut prev_cjk = false;
    for c in text.chars() {
        let cjk = is_cjk(c);
        if (cjk || prev_cjk)
            && !c.is_whitespace()
            && !out.is_empty()
            && !out.ends_with(char::is_whitespace)
        {
            out.push(' ');
        }
        out.push(c);
        prev_cjk = cjk;
    }
    Some(out)
}

/// The parts of an identifier written in camelCase or PascalCase, when it has at least two
/// of two letters or more: `DefaultHost` → `Default`, `Host`; `useEffect` → `use`, `Effect`;
/// `HTTPServer` → `HTTP`, `Server`; `AgentDepsT` → `Agent`, `Deps`. `None` for a word without
/// a change of case inside it, and for one that would keep fewer than two parts: a plural of
/// capitals is one part (`IDs`, `PRs`, `RNAs`), digits and single letters are no parts
/// (`mRNA`, `ErbB4`, `utf8`, `v2` stay whole). Only ASCII words are split.
///
/// The full-text index holds these parts beside the whole word ([`index_text`]) and a query
/// searches them beside it ([`query_terms`]), so a task that says "default host" finds a
/// memory about `cfg.DefaultHost()`, and one that names `DefaultHost` finds it best.
/// (`snake_case`, dotted and slashed names are split by the tokenizer already: `_`, `.` and `/`
/// separate words.)
///
/// ```
/// use oro_mem_text::identifier_parts;
/// assert_eq!(identifier_parts("DefaultHost"), Some(vec!["Default", "Host"]));
/// assert_eq!(identifier_parts("HTTPServer"), Some(vec!["HTTP", "Server"]));
/// assert_eq!(identifier_parts("IDs"), None);
/// assert_eq!(identifier_parts("mRNA"), None);
/// ```
pub fn identifier_parts<'a>(word: &'a str) -> Option<Vec<&'a str>> {
    let b = word.as_bytes();
    // Every change of case is to a capital after the first letter: most words have none, and
    // are done with here, before anything is allocated.
    if b.len() < 4
        || !b[1..].iter().any(u8::is_ascii_uppercase)
        || !b.iter().all(u8::is_ascii_alphanumeric)
    {
        return None;
    }
    let lower = |i: usize| b.get(i).is_some_and(u8::is_ascii_lowercase);
    let upper = |i: usize| b.get(i).is_some_and(u8::is_ascii_uppercase);
    // A piece between two cuts is a part when it is two letters or more.
    let mut parts = Vec::new();
    let mut keep = |piece: &'a str| {
        if piece.len() >= 2 && piece.bytes().all(|c| c.is_ascii_alphabetic()) {
            parts.push(piece);
        }
    };
    let mut start = 0;
    let mut cased = false;
    for i in 1..b.len() {
        // aB and 4B: a word begins at B. ABc: at B, unless "c" is a plural "s" (IDs, URLsFor).
        let plural = b.get(i + 1) == Some(&b's') && !lower(i + 2);
        let case = ((lower(i - 1) || b[i - 1].is_ascii_digit()) && upper(i))
            || (upper(i - 1) && upper(i) && lower(i + 1) && !plural);
        cased |= case;
        if case || b[i - 1].is_ascii_digit() != b[i].is_ascii_digit() {
            keep(&word[start..i]);
            start = i;
        }
    }
    keep(&word[start..]);
    (cased && parts.len() >= 2).then_some(parts)
}

/// The words of `text` as the full-text index holds them: [`words`], each identifier followed
/// by its [`identifier_parts`]. Positions counted over these agree with [`index_text`]'s.
pub fn index_words(text: &str) -> impl Iterator<Item = &str> {
    words(text).flat_map(|w| std::iter::once(w).chain(identifier_parts(w).into_iter().flatten()))
}

/// `text` as the full-text index is given it: CJK characters spaced ([`spaced_cjk`]) and each
/// identifier's parts written after it ([`identifier_parts`]: `cfg.DefaultHost()` →
/// `cfg.DefaultHost Default Host()`), so that the index's tokenizer reads [`index_words`].
/// `None` when `text` can be indexed as it is.
///
/// ```
/// use oro_mem_text::index_text;
/// assert_eq!(index_text("call cfg.DefaultHost()").unwrap(), "call cfg.DefaultHost Default Host()");
/// assert_eq!(index_text("plain words, v2 and IDs"), None);
/// ```
pub fn index_text(text: &str) -> Option<String> {
    let spaced = spaced_cjk(text);
    let base = spaced.as_deref().unwrap_or(text);
    let mut out: Option<String> = None;
    let mut copied = 0;
    for seg in segments(base) {
        let Segment::Word(w) = seg else { continue };
        let Some(parts) = identifier_parts(w) else {
            continue;
        };
        // `segments` returns slices of `base`: the word ends this far into it.
        let end = w.as_ptr() as usize - base.as_ptr() as usize + w.len();
        let o = out.get_or_insert_with(|| String::with_capacity(base.len() + 32));
        o.push_str(&base[copied..end]);
        for p in parts {
            o.push(' ');
            o.push_str(p);
        }
        copied = end;
    }
    match out {
        Some(mut o) => {
            o.push_str(&base[copied..]);
            Some(o)
        }
        None => spaced,
    }
}

/// The set of lowercased words of `text`.
pub fn word_set(text: &str) -> HashSet<String> {
    words(text).map(str::to_lowercase).collect()
}

/// Jaccard similarity of two word sets: shared words over all distinct words, in `[0, 1]`.
/// Two empty sets are identical (1.0).
pub fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let shared = a.intersection(b).count();
    shared as f64 / (a.len() + b.len() - shared) as f64
}

/// The distinct query terms of `text`, in order of first appearance.
///
/// Words are lowercased, an identifier's parts follow it ([`identifier_parts`]: `DefaultHost`
/// gives `defaulthost`, `default`, `host`); stopwords, one-character words and `NEAR` in
/// capitals (FTS5's operator) are dropped (one CJK character is a word, so it is kept); CJK
/// runs become overlapping bigrams. Everything that is not a letter or digit, query
/// operators' punctuation included, separates terms. At most [`MAX_QUERY_TERMS`] are
/// returned.
///
/// ```
/// use oro_mem_text::{query_terms, Term};
/// let t = query_terms("Why does the 数据库 lock?");
/// assert_eq!(t, [
///     Term::Cjk("数据".into()), Term::Cjk("据库".into()), Term::Word("lock".into()),
/// ]);
/// ```
pub fn query_terms(text: &str) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    let push = |t: Term, out: &mut Vec<Term>| {
        if !out.contains(&t) {
            out.push(t);
        }
    };
    for seg in segments(text) {
        if out.len() >= MAX_QUERY_TERMS {
            break;
        }
        match seg {
            Segment::Word(w) => {
                // `NEAR` in capitals is FTS5's operator (`NEAR(a b)`), dropped as `AND`, `OR`
                // and `NOT` are (stopwords); "near" in lower case is a word.
                if w.chars().nth(1).is_none() || w == "NEAR" {
                    continue;
                }
                let lower = w.to_lowercase();
                if !is_stopword(&lower) {
                    push(Term::Word(lower), &mut out);
                }
                // An identifier's parts are searched beside it, as the index holds them.
                for part in identifier_parts(w).into_iter().flatten() {
                    let lower = part.to_lowercase();
                    if !is_stopword(&lower) {
                        push(Term::Word(lower), &mut out);
                    }
                }
            }
            Segment::Cjk(run) => {
                let chars: Vec<char> = run.chars().collect();
                if chars.len() == 1 {
                    push(Term::Cjk(run.to_string()), &mut out);
                }
                for pair in chars.windows(2) {
                    push(Term::Cjk(pair.iter().collect()), &mut out);
                }
            }
        }
    }
    out.truncate(MAX_QUERY_TERMS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_is_classed_as_its_definition_says() {
        // The ASCII fast path changes how, not what: CJK scripts, then letters and digits.
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            let defined = if is_cjk(c) {
                Class::Cjk
            } else if c.is_alphanumeric() {
                Class::Word
            } else {
                Class::Other
            };
            assert!(class(c) == defined, "{c:?} (U+{:04X})", c as u32);
        }
    }

    #[test]
    fn mostly_cjk_is_by_the_share_of_letters() {
        assert!(is_mostly_cjk("天气很好"));
        assert!(is_mostly_cjk("数据库 lock 超时了"));
        assert!(!is_mostly_cjk("SQLite 锁 contention"));
        assert!(!is_mostly_cjk("database timeout"));
        assert!(!is_mostly_cjk("?!"));
        assert!(!is_mostly_cjk("Café naïve résumé"));
    }

    #[test]
    fn negation_is_counted_contractions_and_all() {
        for text in [
            "ruff --fix must not run before pyright",
            "Don't run ruff before pyright",
            "never commit .env files",
            "it doesn\u{2019}t work without the venv and never did",
            "NO force pushes to main",
            "Do not use the no-op logger",
        ] {
            assert!(is_negated(text), "{text}");
        }
        for text in [
            "ruff --fix must run before pyright",
            // A negation inside a word joined by hyphens negates nothing.
            "Use the no-op logger in tests",
            "Commit with `git commit --no-verify` only for a WIP",
            "Users can opt-out of telemetry",
            "notes say it is not true that nothing works", // not + nothing: even
            "the node count is tracked",
            // What it is said instead of.
            "Use pnpm, not npm",
            "The config file is `config.toml` (not `config.yaml`)",
            "",
        ] {
            assert!(!is_negated(text), "{text}");
        }
        assert!(is_negated("Use pnpm, but do not use npx"));
        assert!(same_polarity(
            "Use pnpm, not npm",
            "Use pnpm instead of npm"
        ));
        assert!(!same_polarity(
            "ruff --fix must not run before pyright",
            "ruff --fix must run before pyright"
        ));
        assert!(same_polarity("never use unwrap", "do not use unwrap"));
    }

    #[test]
    fn identifiers_split_at_changes_of_case_into_parts_of_two_letters_or_more() {
        for (word, parts) in [
            ("DefaultHost", Some(&["Default", "Host"][..])),
            ("useEffect", Some(&["use", "Effect"])),
            ("HTTPServer", Some(&["HTTP", "Server"])),
            ("AgentDepsT", Some(&["Agent", "Deps"])),
            ("Base64Encoder", Some(&["Base", "Encoder"])),
            ("URLsFor", Some(&["URLs", "For"])),
            ("requestId", Some(&["request", "Id"])),
            ("IDs", None),
            ("RNAs", None),
            ("mRNA", None),
            ("ErbB4", None),
            ("utf8", None),
            ("lowercase", None),
            ("UPPERCASE", None),
            ("Capitalized", None),
            ("Caf\u{e9}Noir", None),
        ] {
            assert_eq!(identifier_parts(word).as_deref(), parts, "{word}");
        }
    }

    #[test]
    fn an_identifiers_parts_follow_it_in_the_index_and_in_a_query() {
        assert_eq!(
            index_text("Use `useEffect` in RunContext.").unwrap(),
            "Use `useEffect use Effect` in RunContext Run Context."
        );
        assert_eq!(
            index_words("HTTPServer ok").collect::<Vec<_>>(),
            ["HTTPServer", "HTTP", "Server", "ok"]
        );
        // CJK is spaced as before, identifiers split beside it.
        assert_eq!(
            index_text("数据 DefaultHost").unwrap(),
            "数 据 DefaultHost Default Host"
        );
        let terms: Vec<String> = query_terms("set nameOfTest in DefaultHost")
            .iter()
            .map(|t| t.as_str().to_string())
            .collect();
        assert_eq!(
            terms,
            [
                "set",
                "nameoftest",
                "name",
                "test",
                "defaulthost",
                "default",
                "host"
            ]
        );
    }

    #[test]
    fn query_terms_drop_stopwords_single_letters_and_operators() {
        let words: Vec<String> = query_terms("How do I use a WAL-mode DB? (x AND y*)")
            .iter()
            .map(|t| t.as_str().to_string())
            .collect();
        assert_eq!(words, ["use", "wal", "mode", "db"]);
        let words: Vec<String> = query_terms("NEAR(wal lock, 3) near the door")
            .iter()
            .map(|t| t.as_str().to_string())
            .collect();
        assert_eq!(
            words,
            ["wal", "lock", "near", "door"],
            "NEAR the operator, near the word"
        );
        for q in [
            "",
            "   ",
            "the and or not",
            "a b c",
            "\"\"\"",
            "((*))",
            "\0\0",
        ] {
            assert!(query_terms(q).is_empty(), "{q:?}");
        }
    }

    #[test]
    fn query_terms_are_deduplicated_and_capped() {
        assert_eq!(query_terms("wal WAL Wal").len(), 1);
        let long: String = (0..1000).map(|i| format!("word{i} ")).collect();
        assert_eq!(query_terms(&long).len(), MAX_QUERY_TERMS);
        assert_eq!(query_terms("锁"), [Term::Cjk("锁".into())]);
    }

    #[test]
    fn words_split_cjk_per_character_and_keep_latin_words() {
        let w: Vec<_> = words("用SQLite的WAL模式, naïve café").collect();
        assert_eq!(
            w,
            ["用", "SQLite", "的", "WAL", "模", "式", "naïve", "café"]
        );
    }

    #[test]
    fn japanese_kana_and_kanji_are_cjk() {
        let w: Vec<_> = words("データベース").collect();
        assert_eq!(w.len(), 6);
    }

    #[test]
    fn spaced_cjk_leaves_latin_text_alone() {
        assert_eq!(spaced_cjk("plain text"), None);
        assert_eq!(spaced_cjk("数据库 lock").unwrap(), "数 据 库 lock");
        assert_eq!(spaced_cjk("a数b").unwrap(), "a 数 b");
    }

    #[test]
    fn jaccard_of_identical_and_disjoint_sets() {
        let a = word_set("the WAL mode");
        assert_eq!(jaccard(&a, &word_set("The wal MODE!")), 1.0);
        assert_eq!(jaccard(&a, &word_set("nothing shared")), 0.0);
    }
}
