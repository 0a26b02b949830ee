//! The values a statement names, compared exactly: what tells a changed fact ("the staging
//! API runs on port 9090") from the same statement reworded, where the words alone cannot.
//! The full-text index drops digits, single characters and the punctuation inside versions
//! and paths, so to it "pnpm 8" and "pnpm 9" are the same text.

use std::collections::BTreeSet;

/// What is cut from both ends of a word before it is read as a value: quotes, brackets,
/// punctuation after it, and Markdown emphasis.
const WRAPPING: &[char] = &[
    '`', '\'', '"', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '!', '?', '*', '_',
];

/// The values `text` names, each as written: every code span (between backticks, its
/// spaces collapsed) whole, every Markdown link's target, and every other word that holds a
/// digit, a path or assignment character (`/ = @ # \`), `::`, an inner `.`, `_` or `-`
/// (versions, file names, identifiers, packages), a lower-case letter followed by a capital
/// (camelCase), or that starts with `-` or `+` (a flag, a toolchain). Plain words are no
/// values: rewording changes them.
///
/// ```
/// use oro_mem_text::values;
///
/// let v = values("Run `cargo test --all` before v2.1; see docs/testing.md");
/// assert!(v.contains("cargo test --all") && v.contains("v2.1") && v.contains("docs/testing.md"));
/// assert!(values("Always run the tests first").is_empty());
/// ```
pub fn values(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut prose = String::with_capacity(text.len());
    // Code spans whole: a command is one value, whatever its words.
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        prose.push_str(&rest[..open]);
        prose.push(' ');
        let span = rest[open + 1..open + 1 + len].split_whitespace();
        let span = span.collect::<Vec<_>>().join(" ");
        if !span.is_empty() {
            out.insert(span);
        }
        rest = &rest[open + len + 2..];
    }
    prose.push_str(rest);
    for word in prose.split_whitespace() {
        // A Markdown link's target is a value; its text is prose.
        let (word, target) = match word.split_once("](") {
            Some((before, after)) => (before, after.split(')').next()),
            None => (word, None),
        };
        if let Some(target) = target.map(|t| t.trim_end_matches('/')) {
            if !target.is_empty() {
                out.insert(target.to_string());
            }
        }
        let word = word
            .trim_matches(WRAPPING)
            .trim_end_matches(['.', ':'])
            .trim_matches(WRAPPING);
        if is_value(word) {
            out.insert(word.to_string());
        }
    }
    out
}

/// True unless each of `a` and `b` names a value the other does not ([`values`]): a value
/// changed from one to the other (a port, a version, a command, a path), so they are two
/// states of one fact rather than one statement reworded. A value only added or only dropped
/// (a version mentioned in passing, a link) changes nothing.
///
/// ```
/// use oro_mem_text::same_values;
///
/// assert!(!same_values("The staging API runs on port 8080", "The staging API runs on port 9090"));
/// assert!(same_values("Run `just fmt` before committing", "Always run `just fmt` before a commit"));
/// assert!(same_values("ruff is written in Rust (1.63.0).", "ruff is written in Rust."));
/// ```
pub fn same_values(a: &str, b: &str) -> bool {
    let (a, b) = (values(a), values(b));
    a.is_subset(&b) || b.is_subset(&a)
}

/// True when `new` is `old` with some of its values changed and little else: the same
/// statement of a fact whose value moved on (a port, a version, a path, a command, a flag, an
/// identifier), which supersedes it. Read word by word: at least 70% of the shorter
/// statement's words are the other's, in order; of the words that differ (other than short
/// function words and punctuation, and other than typo fixes: a word replaced by one within
/// a fifth of its letters), at least one is dropped and one added, at most six in all, and
/// every one is a value (as [`values`] reads a word, or a code span). A rewording changes
/// plain words; a statement about something else shares too few.
///
/// ```
/// use oro_mem_text::changed_value;
///
/// assert!(changed_value("The staging API runs on port 8080", "The staging API runs on port 9090"));
/// assert!(changed_value(
///     "Format the code with `cargo +nightly fmt` before a commit",
///     "Format the code with `cargo fmt --all` before a commit",
/// ));
/// assert!(!changed_value("Run the tests before you commit", "Always run the tests before committing"));
/// assert!(!changed_value("Use `gofumpt -w .` to format", "Use `goftumpt -w .` to format"));
/// ```
pub fn changed_value(old: &str, new: &str) -> bool {
    let (a, b) = (tokens(old), tokens(new));
    let (la, lb): (Vec<String>, Vec<String>) = (lower(&a), lower(&b));
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &la, &lb);
    let mut same = 0;
    let (mut dropped, mut added) = (Vec::new(), Vec::new());
    for op in &ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            same += old_range.len();
            continue;
        }
        let gone: Vec<&str> = a[old_range]
            .iter()
            .copied()
            .filter(|t| is_content(t))
            .collect();
        let came: Vec<&str> = b[new_range]
            .iter()
            .copied()
            .filter(|t| is_content(t))
            .collect();
        let typos = gone.len() == came.len() && gone.iter().zip(&came).all(|(x, y)| is_typo(x, y));
        if !typos {
            dropped.extend(gone);
            added.extend(came);
        }
    }
    let shorter = a.len().min(b.len()).max(1);
    same * 10 >= shorter * 7
        && !dropped.is_empty()
        && !added.is_empty()
        && dropped.len() + added.len() <= 6
        && dropped.iter().chain(&added).all(|t| is_value_token(t))
}

/// The words of `text` for [`changed_value`]: a code span (with its backticks) or a URL
/// whole, a run of letters, digits and `_ . / @ : + -`, or any other character alone.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while let Some(c) = rest.chars().next() {
        let len = if c == '`' {
            rest[1..].find('`').map_or(rest.len(), |end| end + 2)
        } else if rest.starts_with("http://") || rest.starts_with("https://") {
            rest.find(char::is_whitespace).unwrap_or(rest.len())
        } else if is_word_char(c) {
            rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len())
        } else {
            c.len_utf8()
        };
        out.push(&rest[..len]);
        rest = rest[len..].trim_start();
    }
    out
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '@' | ':' | '+' | '-')
}

fn lower(tokens: &[&str]) -> Vec<String> {
    tokens.iter().map(|t| t.to_lowercase()).collect()
}

/// Short function words: changing them rewords a statement.
const FUNCTION_WORDS: &[&str] = &[
    "a", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "do", "does", "for", "from", "here", "how", "i", "if", "in", "into", "is", "it",
    "its", "just", "may", "might", "more", "most", "must", "no", "not", "of", "on", "only", "or",
    "our", "please", "should", "so", "some", "that", "the", "then", "there", "these", "this",
    "those", "to", "us", "very", "we", "what", "when", "which", "who", "why", "will", "with",
    "would", "you", "your",
];

/// A word that carries meaning: not punctuation, not a function word.
fn is_content(token: &str) -> bool {
    token.chars().any(char::is_alphanumeric)
        && !FUNCTION_WORDS.contains(&token.to_lowercase().as_str())
}

/// A code span, or a word [`values`] reads as a value.
fn is_value_token(token: &str) -> bool {
    if token.starts_with('`') {
        return true;
    }
    let word = token
        .trim_matches(WRAPPING)
        .trim_end_matches(['.', ':'])
        .trim_matches(WRAPPING);
    is_value(word)
}

/// `a` and `b` are one word with a typo fixed: words of four letters or more, without digits
/// (a version or number one digit apart is another value), whose edit distance is at most a
/// fifth of the shorter (at least 1).
fn is_typo(a: &str, b: &str) -> bool {
    let plain = |w: &str| w.chars().count() >= 4 && !w.chars().any(|c| c.is_ascii_digit());
    if !plain(a) || !plain(b) {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (
        a.to_lowercase().chars().collect(),
        b.to_lowercase().chars().collect(),
    );
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()] <= (a.len().min(b.len()) / 5).max(1)
}

fn is_value(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    let Some(&first) = chars.first() else {
        return false;
    };
    let inner = if chars.len() > 2 {
        &chars[1..chars.len() - 1]
    } else {
        &[][..]
    };
    chars.iter().any(char::is_ascii_digit)
        || chars
            .iter()
            .any(|c| matches!(c, '/' | '=' | '@' | '#' | '\\'))
        || word.contains("::")
        || inner.iter().any(|c| matches!(c, '.' | '_' | '-'))
        || (matches!(first, '-' | '+') && chars.len() > 1)
        || chars
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn values_are_what_rewording_keeps_and_an_update_changes() {
        for (a, b) in [
            ("Deploys use pnpm 8", "Deploys use pnpm 9"),
            (
                "Format with `cargo +nightly fmt --all`",
                "Format with `cargo fmt --all`",
            ),
            (
                "Config lives in src/config.rs",
                "Config lives in src/settings.rs",
            ),
            (
                "Set DEBUG=1 to see the queries",
                "Set DEBUG=2 to see the queries",
            ),
            ("Call getUserName first", "Call fetchUserName first"),
        ] {
            assert!(!same_values(a, b), "{a:?} / {b:?}");
        }
        for (a, b) in [
            (
                "Synchronize with the offical repository",
                "Synchronize with the official repository",
            ),
            (
                "If you *have* to suppress a lint",
                "If you _have_ to suppress a lint",
            ),
            (
                "See [the guide](https://x.dev/guide/).",
                "See the guide at [this page](https://x.dev/guide)",
            ),
            (
                "Use `uv run` for scripts",
                "Scripts run with `uv run`, always",
            ),
            // One side only: a value added or dropped.
            (
                "Install the [Rust toolchain](https://rustup.rs)",
                "Install the Rust toolchain",
            ),
        ] {
            assert!(same_values(a, b), "{a:?} / {b:?}");
        }
    }

    #[test]
    fn odd_backticks_and_empty_spans_are_prose() {
        assert_eq!(values("an ` odd one"), BTreeSet::new());
        assert_eq!(values("`` and `v1`"), BTreeSet::from(["v1".to_string()]));
    }

    proptest! {
        #[test]
        fn a_statement_has_its_own_values_and_the_check_is_symmetric(
            a in "[a-zA-Z0-9 ./_`*()\\[\\]-]{0,60}",
            b in "[a-zA-Z0-9 ./_`*()\\[\\]-]{0,60}",
        ) {
            prop_assert!(same_values(&a, &a));
            prop_assert_eq!(same_values(&a, &b), same_values(&b, &a));
        }

        #[test]
        fn a_changed_number_version_or_path_is_an_update(
            words in prop::collection::vec("[a-z]{4,9}", 4..12),
            at in any::<prop::sample::Index>(),
            kind in 0..3usize,
            x in 1u32..5000,
            y in 1u32..5000,
        ) {
            prop_assume!(x != y);
            let value = |n: u32| match kind {
                0 => n.to_string(),
                1 => format!("{}.{}.{}", n / 100, n / 10 % 10, n % 10),
                _ => format!("src/mod{n}.rs"),
            };
            let i = at.index(words.len() + 1);
            let (mut old, mut new) = (words.clone(), words);
            old.insert(i, value(x));
            new.insert(i, value(y));
            prop_assert!(changed_value(&old.join(" "), &new.join(" ")));
            prop_assert!(!changed_value(&old.join(" "), &old.join(" ")), "the same statement");
        }

        #[test]
        fn a_reworded_statement_is_never_an_update(
            words in prop::collection::vec("[a-z]{4,9}", 4..12),
            value in "[0-9]{1,4}|v[0-9]\\.[0-9]|`[a-z]{2,6} --[a-z]{2,6}`",
            at in any::<prop::sample::Index>(),
            word in "[a-z]{4,9}",
            how in 0..3usize,
        ) {
            let mut old = words.clone();
            old.insert(at.index(words.len() + 1), value);
            let mut new = old.clone();
            // A plain word replaced, dropped, or added; the value kept.
            let i = at.index(words.len());
            let i = if new[i].chars().next().is_some_and(|c| c.is_ascii_lowercase()) && !new[i].contains('`') { i } else { (i + 1) % new.len() };
            match how {
                0 => new[i] = word,
                1 => { new.remove(i); }
                _ => new.insert(i, word),
            }
            prop_assert!(!changed_value(&old.join(" "), &new.join(" ")), "{:?} -> {:?}", old, new);
        }
    }
}
