//! What a statement states, without its formatting (emphasis, a list marker, a note's label),
//! and two statements read the same way before they are compared.

use std::borrow::Cow;

use super::tokens::{keys, markdown_links, same_linked_word, tokens};

/// The statement `text` makes, without what its formatting adds: white space run together,
/// typography as typed (curly quotes straight, `…` as `...`, no zero-width characters), a
/// list's marker or a heading's before it (`- `, `1. `, `## `, `> `), emphasis or quotes around
/// all of it (`**…**`, `__…__`, `*…*`, `"…"`), the label of a note or a warning before it
/// ("Note:", "**Important:**", [`ADMONITIONS`]) and the full stop (or `!`, `:`, `;`) that ends
/// it. What the checks of two statements against each other read ([`updates`](super::updates)
/// and those beside it), so that "`cargo fmt --all`" and "- **Note:** `cargo  fmt --all`." are
/// one statement, as a reader takes them, and neither a newer state of the other nor another
/// fact.
pub(super) fn as_stated(text: &str) -> Cow<'_, str> {
    // Typography: a curly quote or apostrophe is a straight one, an ellipsis three full
    // stops, and what shows nothing (a zero-width space, a soft hyphen) is nothing.
    let typeset = |c: char| {
        matches!(
            c,
            '\u{2018}' | '\u{2019}' | '\u{201c}' | '\u{201d}' | '\u{2026}'
        )
    };
    let hidden = |c: char| !c.is_whitespace() && crate::is_invisible(c);
    let plain = text.trim() == text
        && !text.contains("  ")
        && !text.contains(|c: char| (c.is_whitespace() && c != ' ') || typeset(c) || hidden(c))
        && !text.contains(">`_");
    let joined;
    let whole = if plain {
        text
    } else {
        let mut ascii = String::with_capacity(text.len());
        for c in text.chars().filter(|&c| !hidden(c)) {
            match c {
                '\u{2018}' | '\u{2019}' => ascii.push('\''),
                '\u{201c}' | '\u{201d}' => ascii.push('"'),
                '\u{2026}' => ascii.push_str("..."),
                c => ascii.push(c),
            }
        }
        joined = markdown_links(&ascii.split_whitespace().collect::<Vec<_>>().join(" "));
        &joined
    };
    // What is peeled off is a prefix or a suffix: the statement is a part of `whole`.
    let mut s = whole;
    while let Some(inner) = wrapped(s)
        .or_else(|| after_marker(s))
        .or_else(|| without_admonition(s))
        .or_else(|| without_full_stop(s))
    {
        s = inner.trim();
    }
    let at = s.as_ptr() as usize - whole.as_ptr() as usize;
    if plain {
        Cow::Borrowed(&text[at..at + s.len()])
    } else {
        Cow::Owned(s.to_string())
    }
}

/// `a` and `b` as stated ([`as_stated`]), or `None` when they make one statement written
/// otherwise: the same characters as stated but for backticks (`cargo fmt` in a code span
/// or not) and the case of letters, or the same words but for links to the same pages
/// ([`same_but_links`]), neither a newer state of the other nor another fact.
/// What each check of two statements reads first.
pub(super) fn two_statements<'a>(a: &'a str, b: &'a str) -> Option<(Cow<'a, str>, Cow<'a, str>)> {
    let (a, b) = (as_stated(a), as_stated(b));
    let key = |text: &str| text.replace('`', "").to_lowercase();
    (key(&a) != key(&b) && !same_but_links(&a, &b)).then_some((a, b))
}

/// True when `a` and `b` are word for word the same but for links to the same pages written
/// otherwise, or put on the same words ([`same_linked_word`]).
pub(super) fn same_but_links(a: &str, b: &str) -> bool {
    // A link's opening bracket is a token of its own: "the [Angular commit convention](…)".
    let keys = |text: &str| -> Vec<String> {
        keys(&tokens(text))
            .into_iter()
            .filter(|k| k != "[")
            .collect()
    };
    let (ka, kb) = (keys(a), keys(b));
    ka.len() == kb.len()
        && ka
            .iter()
            .zip(&kb)
            .all(|(x, y)| x == y || same_linked_word(x, y))
}

/// What emphasis or quotes around all of `text` hold, when they do and it holds no more of
/// them (`**all** tests, and **no** warnings` is no statement in bold).
pub(super) fn wrapped(text: &str) -> Option<&str> {
    const FENCES: &[(&str, &str)] = &[("**", "**"), ("__", "__"), ("*", "*"), ("\"", "\"")];
    FENCES.iter().find_map(|&(open, close)| {
        let inner = text.strip_prefix(open)?.strip_suffix(close)?;
        (!inner.contains(open) && !inner.contains(close) && !inner.trim().is_empty())
            .then_some(inner)
    })
}

/// What `text` says after the marker of a list's item, a heading or a quote it opens with
/// (`- `, `* `, `+ `, `1. `, `2) `, `## `, `> `), when it goes on.
pub(super) fn after_marker(text: &str) -> Option<&str> {
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = if (1..=3).contains(&digits) {
        text[digits..]
            .strip_prefix(". ")
            .or_else(|| text[digits..].strip_prefix(") "))?
    } else if text.starts_with('#') {
        text.trim_start_matches('#').strip_prefix(' ')?
    } else {
        ["- ", "* ", "+ ", "> "]
            .iter()
            .find_map(|marker| text.strip_prefix(marker))?
    };
    (!rest.trim().is_empty()).then_some(rest)
}

/// `text` without the punctuation that ends it as a sentence (`.`, `!`, `:`, `;`, an ellipsis:
/// "Run the tests with:" is "Run the tests with."), but a lone `.` argument ("`ruff format
/// .`").
pub(super) fn without_full_stop(text: &str) -> Option<&str> {
    const ENDS: [char; 4] = ['.', '!', ':', ';'];
    let mut rest = text;
    while let Some(shorter) = rest.strip_suffix(ENDS) {
        if shorter.is_empty() || shorter.ends_with(' ') {
            break;
        }
        rest = shorter;
    }
    (rest.len() < text.len()).then_some(rest)
}

/// What `text` says after the label of a note or a warning it opens with ("Note: …",
/// "**Important:** …", "**Tip**: …"), when it opens with one and goes on.
pub(super) fn without_admonition(text: &str) -> Option<&str> {
    let bold = text.starts_with("**");
    let rest = text.trim_start_matches('*');
    let end = rest.find(|c: char| !c.is_alphabetic())?;
    let label = rest[..end].to_lowercase();
    if !ADMONITIONS.contains(&label.as_str()) {
        return None;
    }
    let after = &rest[end..];
    let after = if bold {
        after
            .strip_prefix(":**")
            .or_else(|| after.strip_prefix("**:"))?
    } else {
        after.strip_prefix(':')?
    };
    let said = after.trim_start();
    (!said.is_empty() && after.starts_with(' ')).then_some(said)
}

/// The labels that lead a note, a warning or an example, in bold or not: no list's key.
/// Sorted.
pub(super) const ADMONITIONS: &[&str] = &[
    "attention",
    "caution",
    "danger",
    "example",
    "important",
    "info",
    "nb",
    "note",
    "notes",
    "remember",
    "reminder",
    "tip",
    "todo",
    "warning",
];
