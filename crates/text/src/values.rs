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
    }
}
