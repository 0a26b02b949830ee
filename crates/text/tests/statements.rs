//! What the write path reads in two statements, checked over every statement of the labelled
//! update pairs in `fixtures/` (real edits of projects' contributing guides and agent
//! instructions, and pairs written the way a user writes): formatting (white space, a list's
//! marker, emphasis, quotes, backticks, typography, a note's label, a full stop, a link's
//! scheme or syntax) changes no statement, and a number, a version, a path, an identifier or a quoted string changed, the
//! rest kept, always makes an update.

use std::ops::Range;
use std::sync::LazyLock;

use oro_mem_text::{changed_value, rewords, same_values, updates};
use proptest::prelude::*;

/// Each statement, old and new, of the labelled pairs in `fixtures/`, once.
static STATEMENTS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut out = read_statements(&[
        "updates-written.jsonl",
        "updates-sdist.jsonl",
        "updates-sdist-heldout.jsonl",
        "updates-sdist-third.jsonl",
        "updates-sdist-fourth.jsonl",
        "updates-npm.jsonl",
        "updates-npm-second.jsonl",
        "updates-agents.jsonl",
        "updates-crates.jsonl",
        "updates-crates-second.jsonl",
        "updates-agents-pypi.jsonl",
        "updates-agents-pypi-second.jsonl",
        "updates-agents-pypi-third.jsonl",
        "updates-agents-pypi-fourth.jsonl",
    ]);
    out.extend(QUOTING.iter().map(|s| s.to_string()));
    out.sort();
    out.dedup();
    out
});

/// The statements of the first four sets of [`STATEMENTS`], which the "said replaced"
/// property reads: in the sets made since, a number opens a statement and a noun follows it
/// ("2 spaces indentation"), and the property writes "100 instead of 2 spaces indentation",
/// where `instead of` reads all three words after it as what is replaced.
static FIRST_STATEMENTS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut out = read_statements(&[
        "updates-written.jsonl",
        "updates-sdist.jsonl",
        "updates-sdist-heldout.jsonl",
        "updates-sdist-third.jsonl",
    ]);
    out.extend(QUOTING.iter().map(|s| s.to_string()));
    out.sort();
    out.dedup();
    out
});

/// The statements, old and new, of the pairs in these files of `fixtures/`.
fn read_statements(names: &[&str]) -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");
    let mut out = Vec::new();
    for name in names {
        let path = format!("{dir}/{name}");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let pair: serde_json::Value = serde_json::from_str(line).unwrap();
            for side in ["old", "new"] {
                out.push(pair[side].as_str().unwrap().to_string());
            }
        }
    }
    out
}

/// Statements that quote what they name, as agents' rules do and the fixtures' edits seldom
/// do.
const QUOTING: &[&str] = &[
    "Use the \"Bug report\" template for every new issue.",
    "Error messages avoid phrases like \"failed to\" and start in lower case",
    "Pull requests that change the API need the \"breaking change\" label",
    "`make build` builds the \"fat\" binaries that include the server",
    "In Temporal, defaults use `cmp.Or` when zero means \"unset\"",
    "The release branch is called \"stable\" and is cut every Monday",
    "Logs go to the \"ops alerts\" channel, never to a user's DM",
    "Name the feature flag \"new checkout\" until the launch",
    "Mark flaky tests with the \"quarantine\" marker rather than skipping them",
    "The staging cluster is named \"blue\" in every dashboard",
];

/// A way of writing a statement otherwise: its name, and what it makes of a statement.
type Formatting = (&'static str, fn(&str) -> String);

/// Ways of writing a statement that change how it looks, not what it says.
const FORMATTINGS: &[Formatting] = &[
    ("a space doubled", |t| t.replacen(' ', "  ", 1)),
    ("a line broken", |t| t.replacen(' ', "\n", 1)),
    ("spaces around", |t| format!("  {t}\t")),
    // Emphasis around a statement with emphasis in it is no Markdown: left out.
    ("in bold", |t| emphasized(t, "**")),
    ("in italics", |t| emphasized(t, "*")),
    ("a list's marker", |t| format!("- {t}")),
    ("a numbered list's marker", |t| format!("3. {t}")),
    ("a heading's marker", |t| format!("## {t}")),
    ("in quotes", |t| emphasized(t, "\"")),
    ("a code span's backticks dropped", unticked),
    ("curly quotes and apostrophes", |t| {
        let mut open = true;
        t.chars()
            .map(|c| match c {
                '\'' => '\u{2019}',
                '"' => {
                    open = !open;
                    if open {
                        '\u{201d}'
                    } else {
                        '\u{201c}'
                    }
                }
                c => c,
            })
            .collect()
    }),
    ("a colon at its end", |t| {
        if t.ends_with(" .") {
            t.to_string()
        } else {
            format!("{}:", t.strip_suffix('.').unwrap_or(t))
        }
    }),
    ("a zero-width space", |t| t.replacen(' ', " \u{200b}", 1)),
    // A link to the same page written otherwise.
    ("a link's scheme", |t| {
        if t.contains("](https://") {
            t.replacen("](https://", "](http://", 1)
        } else {
            t.replacen("](http://", "](https://", 1)
        }
    }),
    ("a link in reStructuredText", rst_link),
    ("a note's label", |t| format!("Note: {t}")),
    ("a warning's label in bold", |t| {
        format!("**Important:** {t}")
    }),
    ("a full stop", |t| {
        // Not after a lone `.` argument ("`ruff format .`"): that would change it.
        if t.ends_with(" .") {
            t.to_string()
        } else if let Some(t) = t.strip_suffix('.') {
            t.to_string()
        } else {
            format!("{t}.")
        }
    }),
];

/// `text` with its first Markdown link (`[text](https://…)`, plain text, no brackets inside)
/// written as a reStructuredText link (`` `text <https://…>`_ ``).
fn rst_link(text: &str) -> String {
    let Some(open) = text.find('[') else {
        return text.to_string();
    };
    let rest = &text[open + 1..];
    let Some((name, after)) = rest.split_once("](") else {
        return text.to_string();
    };
    let Some((target, tail)) = after.split_once(')') else {
        return text.to_string();
    };
    if name.contains(['[', ']', '`', '*', '_']) || !target.starts_with("http") || name.is_empty() {
        return text.to_string();
    }
    format!("{}`{name} <{target}>`_{tail}", &text[..open])
}

/// `text` in emphasis by `fence`, or as it is when it holds `fence` already.
fn emphasized(text: &str, fence: &str) -> String {
    let curly = fence == "\"" && text.contains(['\u{201c}', '\u{201d}']);
    if text.contains(fence) || curly {
        text.to_string()
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// `text` with the backticks of its first code span between spaces (or at an end) dropped:
/// "run `cargo fmt` first" → "run cargo fmt first".
fn unticked(text: &str) -> String {
    let mut from = 0;
    while let Some(open) = text[from..].find('`').map(|i| from + i) {
        let Some(close) = text[open + 1..].find('`').map(|i| open + 1 + i) else {
            break;
        };
        let spaced_before = open == 0 || text[..open].ends_with(' ');
        let spaced_after = close + 1 == text.len() || text[close + 1..].starts_with(' ');
        if spaced_before && spaced_after && close > open + 1 {
            return format!(
                "{}{}{}",
                &text[..open],
                &text[open + 1..close],
                &text[close + 1..]
            );
        }
        from = close + 1;
    }
    text.to_string()
}

/// A statement written otherwise is the same statement: no update either way, no value
/// changed, and a duplicate however little alike the two texts score ([`rewords`]).
#[test]
fn formatting_changes_no_statement() {
    let mut wrong = Vec::new();
    for s in STATEMENTS.iter() {
        for (how, format) in FORMATTINGS {
            let f = format(s);
            if f == *s {
                continue;
            }
            let says = [
                ("an update", updates(s, &f) || updates(&f, s)),
                (
                    "a value changed",
                    changed_value(s, &f) || changed_value(&f, s),
                ),
                ("other values", !same_values(s, &f)),
                ("no rewording", !rewords(s, &f) || !rewords(&f, s)),
            ];
            for (what, _) in says.iter().filter(|(_, wrong)| *wrong) {
                wrong.push(format!("{how}: {what}: {s:?}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} statements read as another:\n{}",
        wrong.len(),
        STATEMENTS.len(),
        wrong.join("\n")
    );
}

/// What kind of value [`value_in`] finds.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A whole number: `8080`, `3`. Not a list's number ("1.").
    Number,
    /// A version: `3.12`, `v2.1.0`.
    Version,
    /// A path to a file: `docs/testing.md`.
    Path,
    /// A code identifier in a code span: `` `cmp.Or` ``, `` `busy_timeout` ``.
    Identifier,
    /// A string in double quotes, of one to four words: "Bug report".
    Quoted,
}

/// The first value of `kind` in `text`, as a byte range: a word without the quotes,
/// brackets and punctuation around it (a path without a full stop after it too); what a
/// code span or quotes hold, without them.
fn value_in(text: &str, kind: Kind) -> Option<Range<usize>> {
    match kind {
        Kind::Identifier => return within(text, '`', '`', is_identifier),
        Kind::Quoted => {
            return within(text, '"', '"', |s| {
                (1..=4).contains(&s.split(' ').count())
                    && s.split(' ')
                        .all(|w| !w.is_empty() && w.chars().all(char::is_alphanumeric))
            })
        }
        _ => {}
    }
    let mut at = 0;
    for word in text.split(' ') {
        let start = at;
        at += word.len() + 1;
        let lead = word.len() - word.trim_start_matches(|c| "`'\"([<*".contains(c)).len();
        let mut core = word[lead..].trim_end_matches(|c| "`'\"),;:!?*>]".contains(c));
        if matches!(kind, Kind::Path) {
            core = core.strip_suffix('.').unwrap_or(core);
        }
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let found = match kind {
            Kind::Number => digits(core) && core.len() <= 6,
            Kind::Version => {
                let v = core.strip_prefix('v').unwrap_or(core);
                let parts: Vec<&str> = v.split('.').collect();
                (2..=3).contains(&parts.len()) && parts.iter().all(|p| digits(p))
            }
            Kind::Identifier | Kind::Quoted => unreachable!(),
            Kind::Path => {
                let file = core.rsplit('/').next().unwrap_or("");
                let ext = file.rsplit_once('.').map_or(
                    "",
                    |(stem, ext)| {
                        if stem.is_empty() {
                            ""
                        } else {
                            ext
                        }
                    },
                );
                core.contains('/')
                    && !core.contains("://")
                    && (1..=5).contains(&ext.len())
                    && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                    && core
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"_./-".contains(&b))
            }
        };
        if found {
            return Some(start + lead..start + lead + core.len());
        }
    }
    None
}

/// What the first pair of `open` and `close` in `text` holds, when `holds` it, as a byte range.
fn within(
    text: &str,
    open: char,
    close: char,
    holds: impl Fn(&str) -> bool,
) -> Option<Range<usize>> {
    let start = text.find(open)? + open.len_utf8();
    let end = start + text[start..].find(close)?;
    holds(&text[start..end]).then_some(start..end)
}

/// A code identifier of four characters or more: letters, digits, `_` and `.` between them.
fn is_identifier(s: &str) -> bool {
    s.len() >= 4
        && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// The statements with a value of `kind`, each with where it is.
fn with_a(kind: Kind) -> Vec<(String, Range<usize>)> {
    with_a_in(&STATEMENTS, kind)
}

/// [`with_a`] among `statements`.
fn with_a_in(statements: &[String], kind: Kind) -> Vec<(String, Range<usize>)> {
    let found: Vec<_> = statements
        .iter()
        .filter_map(|s| value_in(s, kind).map(|at| (s.clone(), at)))
        .collect();
    assert!(found.len() >= 10, "too few statements name a {kind:?}");
    found
}

/// Whether the value at `at` is what `text` says something of: a verb follows it.
fn is_subject(text: &str, at: &Range<usize>) -> bool {
    let after = text[at.end..].trim_start_matches(['`', '"']);
    ["is", "are", "was", "has", "must", "should", "can", "will"]
        .iter()
        .any(|verb| {
            after
                .strip_prefix(' ')
                .is_some_and(|a| a.starts_with(&format!("{verb} ")))
        })
}

/// Whether `text` says anything beside what is at `at`: a word of four letters or more
/// there is none in "`block_on` on it.", a fragment of a wrapped line whose one value is
/// all it names, so another value there is another fragment, not the same one changed.
fn says_more(text: &str, at: &Range<usize>) -> bool {
    [&text[..at.start], &text[at.end..]]
        .iter()
        .flat_map(|part| part.split(|c: char| !c.is_alphabetic()))
        .any(|word| word.chars().count() >= 4)
}

/// `text` with `at` replaced by `value`.
fn replaced(text: &str, at: &Range<usize>, value: &str) -> String {
    format!("{}{value}{}", &text[..at.start], &text[at.end..])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// A number changed, nothing else: an update (a port, a count, a major version).
    #[test]
    fn a_number_changed_is_an_update(
        (s, at) in proptest::sample::select(with_a(Kind::Number)),
        number in 0u32..100_000,
    ) {
        let new = replaced(&s, &at, &number.to_string());
        prop_assume!(s[at.clone()].parse::<u32>() != Ok(number));
        prop_assert!(updates(&s, &new), "{s:?} → {new:?}");
    }

    /// A version changed, in its form (`v` and the number of its parts kept): an update.
    #[test]
    fn a_version_changed_is_an_update(
        (s, at) in proptest::sample::select(with_a(Kind::Version)),
        parts in proptest::collection::vec(0u32..40, 3),
    ) {
        let old = &s[at.clone()];
        let n = old.split('.').count();
        let v = if old.starts_with('v') { "v" } else { "" };
        let version = format!(
            "{v}{}",
            parts[..n].iter().map(u32::to_string).collect::<Vec<_>>().join(".")
        );
        prop_assume!(version != old);
        let new = replaced(&s, &at, &version);
        prop_assert!(updates(&s, &new), "{s:?} → {new:?}");
    }

    /// A path to another file of the same kind, in the same directory: an update.
    #[test]
    fn a_path_changed_is_an_update(
        (s, at) in proptest::sample::select(with_a(Kind::Path)),
        name in "[a-z]{4,10}",
    ) {
        let old = &s[at.clone()];
        let (dir, file) = old.rsplit_once('/').unwrap();
        let (stem, ext) = file.rsplit_once('.').unwrap();
        prop_assume!(stem != name);
        let new = replaced(&s, &at, &format!("{dir}/{name}.{ext}"));
        prop_assert!(updates(&s, &new), "{s:?} → {new:?}");
    }

    /// Another identifier in a code span: an update.
    #[test]
    fn an_identifier_changed_is_an_update(
        (s, at) in proptest::sample::select(with_a(Kind::Identifier)),
        name in "[a-z]{3,8}_[a-z]{3,8}",
    ) {
        prop_assume!(s[at.clone()] != name);
        // What a statement says of one identifier it says of another: the subject replaced,
        // two facts ("`foo` is deprecated", "`bar` is deprecated"; `subject_replaced`).
        prop_assume!(!is_subject(&s, &at) && says_more(&s, &at));
        let new = replaced(&s, &at, &name);
        prop_assert!(updates(&s, &new), "{s:?} → {new:?}");
    }

    /// Other words in quotes: an update.
    #[test]
    fn a_quoted_string_changed_is_an_update(
        (s, at) in proptest::sample::select(with_a(Kind::Quoted)),
        words in "[a-z]{3,8}( [a-z]{3,8}){0,2}",
    ) {
        prop_assume!(!s[at.clone()].eq_ignore_ascii_case(&words));
        // A statement that is its quoted words and nothing more ("> **\"ESLint for AI
        // agents\"**", a tagline) is rewritten whole, as a fragment of one value is.
        prop_assume!(says_more(&s, &at));
        let new = replaced(&s, &at, &words);
        prop_assert!(updates(&s, &new), "{s:?} → {new:?}");
    }
}

/// How a statement names the value it replaces, after the new one: "Deploys use pnpm 9 (was
/// 8)", "… `ruff` instead of `black` …".
const SAID_REPLACED: &[&str] = &[
    " (was {})",
    " (formerly {})",
    " (previously {})",
    " instead of {}",
    " rather than {}",
    ", not {},",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// A value changed, with the one it replaces named beside it: an update, never the
    /// duplicate its words make it look (the new statement names both values).
    #[test]
    fn a_value_changed_and_said_replaced_is_an_update(
        kind in proptest::sample::select(vec![Kind::Number, Kind::Version, Kind::Identifier]),
        pick in any::<proptest::sample::Index>(),
        marker in proptest::sample::select(SAID_REPLACED),
        number in 100u32..100_000,
        name in "[a-z]{3,8}_[a-z]{3,8}",
    ) {
        let found = with_a_in(&FIRST_STATEMENTS, kind);
        let (s, at) = &found[pick.index(found.len())];
        let (old, new_value, at) = match kind {
            // With its backticks: the marker goes after the code span.
            Kind::Identifier => (
                format!("`{}`", &s[at.clone()]),
                format!("`{name}`"),
                at.start - 1..at.end + 1,
            ),
            Kind::Version => (s[at.clone()].to_string(), format!("{}.{}", number / 1000, number % 1000), at.clone()),
            _ => (s[at.clone()].to_string(), number.to_string(), at.clone()),
        };
        prop_assume!(old != new_value);
        let new = replaced(s, &at, &format!("{new_value}{}", marker.replace("{}", &old)));
        prop_assert!(updates(s, &new), "{s:?} → {new:?}");
    }
}
