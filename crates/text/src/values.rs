//! The values a statement names, compared exactly: what tells a changed fact ("the staging
//! API runs on port 9090") from the same statement reworded, where the words alone cannot.
//! The full-text index drops digits, single characters and the punctuation inside versions
//! and paths, so to it "pnpm 8" and "pnpm 9" are the same text.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::Stemmer;

/// What is cut from both ends of a word before it is read as a value: quotes, brackets,
/// punctuation after it, and Markdown emphasis.
const WRAPPING: &[char] = &[
    '`', '\'', '"', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '!', '?', '*', '_',
];

/// The values `text` names, each as written: every code span (between backticks, its
/// spaces collapsed) whole, every Markdown link's target (the page, without a `#fragment`),
/// and every other word that holds a digit, a path or assignment character (`/ = @ # \`),
/// `::`, an inner `.`, `_` or `-` (versions, file names, identifiers, packages), a
/// lower-case letter followed by a capital (camelCase), or that starts with `-` or `+` (a
/// flag, a toolchain). Plain words are no values: rewording changes them.
///
/// ```
/// use oro_mem_text::values;
///
/// let v = values("Run `cargo test --all` before v2.1; see docs/testing.md");
/// assert!(v.contains("cargo test --all") && v.contains("v2.1") && v.contains("docs/testing.md"));
/// assert!(values("Always run the tests first").is_empty());
/// ```
pub fn values(text: &str) -> BTreeSet<String> {
    values_in(text, page)
}

/// [`values`], each link's target and each URL read as `as_page` reads it: as the page it
/// names ([`page`]) to compare two statements, or as written ([`page_as_written`]) for the
/// identifiers a task names, which leave out what has a scheme.
fn values_in(text: &str, as_page: fn(&str) -> &str) -> BTreeSet<String> {
    let quoted = with_bare_command(text);
    let text = quoted.as_deref().unwrap_or(text);
    let mut out = BTreeSet::new();
    let mut prose = String::with_capacity(text.len());
    // Code spans whole: a command is one value, whatever its words.
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some((fence, len)) = code_span(&rest[open..]) else {
            break;
        };
        prose.push_str(&rest[..open]);
        prose.push(' ');
        let inner = open + fence;
        let span = rest[inner..inner + len].split_whitespace();
        let span = span.collect::<Vec<_>>().join(" ");
        if !span.is_empty() {
            out.insert(span);
        }
        rest = &rest[inner + len + fence..];
    }
    prose.push_str(rest);
    for word in prose.split_whitespace() {
        // A Markdown link's target is a value; its text is prose.
        if let Some(target) = link_target(word, as_page) {
            out.insert(target.to_string());
        }
        let word = word.split_once("](").map_or(word, |(text, _)| text);
        let word = word
            .trim_matches(WRAPPING)
            .trim_end_matches(['.', ':'])
            .trim_matches(WRAPPING);
        if word.contains("://") {
            out.insert(as_page(word).to_string());
        } else if is_value(word) {
            out.insert(word.to_string());
        }
    }
    out
}

/// The statement `text` makes, without what its formatting adds: white space run together,
/// typography as typed (curly quotes straight, `…` as `...`, no zero-width characters),
/// a list's marker or a heading's before it (`- `, `1. `, `## `, `> `), emphasis or quotes
/// around all of it (`**…**`, `__…__`, `*…*`, `"…"`), the label of a note or a warning before
/// it ("Note:", "**Important:**", [`ADMONITIONS`]) and the full stop (or `!`, `:`, `;`) that
/// ends it. What the checks of two statements against each other read ([`updates`] and
/// those beside it), so that "`cargo fmt --all`" and "- **Note:** `cargo  fmt --all`." are
/// one statement, as a reader takes them, and neither a newer state of the other nor
/// another fact.
fn as_stated(text: &str) -> Cow<'_, str> {
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

/// `text` with each reStructuredText link (`` `text <https://…>`_ ``, or `__`) written as a
/// Markdown link (`[text](https://…)`), as a literal (``` ``x`` ```) reads as a code span: a
/// file moved from one to the other says the same, and its links name their pages.
fn markdown_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let inner = &rest[open + 1..];
        let link = inner.find('`').and_then(|close| {
            let (label, after) = (&inner[..close], &inner[close + 1..]);
            let (name, target) = label.strip_suffix('>')?.rsplit_once('<')?;
            after
                .starts_with('_')
                .then_some((name.trim(), target, close + 1))
        });
        match link {
            Some((name, target, len)) => {
                out.push_str(&rest[..open]);
                out.extend(["[", name, "](", target, ")"]);
                rest = inner[len..].trim_start_matches('_');
            }
            None => {
                out.push_str(&rest[..=open]);
                rest = inner;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `a` and `b` as stated ([`as_stated`]), or `None` when they make one statement written
/// otherwise: the same characters as stated but for backticks (`cargo fmt` in a code span
/// or not) and the case of letters, or the same words but for links to the same pages
/// ([`same_but_links`]), neither a newer state of the other nor another fact.
/// What each check of two statements reads first.
fn two_statements<'a>(a: &'a str, b: &'a str) -> Option<(Cow<'a, str>, Cow<'a, str>)> {
    let (a, b) = (as_stated(a), as_stated(b));
    let key = |text: &str| text.replace('`', "").to_lowercase();
    (key(&a) != key(&b) && !same_but_links(&a, &b)).then_some((a, b))
}

/// True when `a` and `b` are word for word the same but for links to the same pages written
/// otherwise, or put on the same words ([`same_linked_word`]).
fn same_but_links(a: &str, b: &str) -> bool {
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
fn wrapped(text: &str) -> Option<&str> {
    const FENCES: &[(&str, &str)] = &[("**", "**"), ("__", "__"), ("*", "*"), ("\"", "\"")];
    FENCES.iter().find_map(|&(open, close)| {
        let inner = text.strip_prefix(open)?.strip_suffix(close)?;
        (!inner.contains(open) && !inner.contains(close) && !inner.trim().is_empty())
            .then_some(inner)
    })
}

/// What `text` says after the marker of a list's item, a heading or a quote it opens with
/// (`- `, `* `, `+ `, `1. `, `2) `, `## `, `> `), when it goes on.
fn after_marker(text: &str) -> Option<&str> {
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
fn without_full_stop(text: &str) -> Option<&str> {
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
fn without_admonition(text: &str) -> Option<&str> {
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

/// The identifiers `text` names: its [`values`] of four characters or more that hold a letter
/// (a path, a command, a code identifier, a package, a flag; not a number, a short version or
/// a link). What a memory that names one of them exactly is about ([`names`]).
///
/// ```
/// use oro_mem_text::identifiers;
///
/// let ids = identifiers("Fix `cfg.DefaultHost()` in api/client.go for v2 (see https://x.io/1)");
/// assert_eq!(ids.into_iter().collect::<Vec<_>>(), ["api/client.go", "cfg.DefaultHost()"]);
/// ```
pub fn identifiers(text: &str) -> BTreeSet<String> {
    let mut out = values_in(text, page_as_written);
    out.retain(|v| {
        v.chars().count() >= 4 && v.chars().any(|c| c.is_ascii_alphabetic()) && !v.contains("://")
    });
    out
}

/// True when `text` holds `identifier` exactly, not inside a longer word or name: `names("see
/// api/client.go.", "client.go")` (a path's last part, at the end of a sentence), but not
/// `names("use clients", "client")` nor `names("client.go.orig", "client.go")`.
///
/// ```
/// use oro_mem_text::names;
///
/// assert!(names("Run `just bazel-lock-update` after", "just bazel-lock-update"));
/// assert!(!names("MODULE.bazel.lock.bak", "MODULE.bazel.lock"));
/// ```
pub fn names(text: &str, identifier: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    !identifier.is_empty()
        && text.match_indices(identifier).any(|(i, _)| {
            let mut after = text[i + identifier.len()..].chars();
            let next = after.next();
            // A name goes on past `.`, `-`, `/` or `:` when a word follows.
            let goes_on =
                word(next) || (matches!(next, Some('.' | '-' | '/' | ':')) && word(after.next()));
            !word(text[..i].chars().next_back()) && !goes_on
        })
}

/// `text` with a command written without backticks put between them, so that it is read as
/// one value, as a code span is: the rest of the text after a leading `[context]` or a
/// colon, when all of it looks like a command line ([`command_line`]). `None` when there is
/// none. Not a whole text that looks like one ([`whole_command`]): a task's title in lower
/// case ("clean up src/store/schema.rs") names its path.
fn with_bare_command(text: &str) -> Option<String> {
    if text.contains('`') {
        return None;
    }
    let trimmed = text.trim();
    let start = if trimmed.starts_with('[') {
        trimmed.find(']')? + 1
    } else {
        trimmed.rfind(": ").map(|i| i + 2)?
    };
    let command = command_line(&trimmed[start..])?;
    let at = text.find(command)?;
    Some(format!(
        "{}`{command}`{}",
        &text[..at],
        &text[at + command.len()..]
    ))
}

/// The command `text` is, all of it, without a `$ ` prompt or a shell comment: a line of a
/// shell session ("$ git switch -c my-fix"), or a command line ([`command_line`]) with a
/// flag, a path or an assignment among its arguments ("prek run --last-commit", "tox run -e
/// py310"), not a rule written in lower case ("never use --no-verify", "always pass
/// --locked"), nor a sentence with a number in it ("tests take 10 minutes"). `None` when it
/// is something else.
fn whole_command(text: &str) -> Option<&str> {
    let text = text.trim();
    // A statement that is one code span and no more is what the span holds: code, as a
    // prompt says.
    let span = code_span(text).filter(|(fence, len)| 2 * fence + len == text.len());
    let text = span.map_or(text, |(fence, len)| text[fence..fence + len].trim());
    if text.contains('`') || text.starts_with('[') {
        return None;
    }
    let prompted = text.starts_with("$ ") || span.is_some();
    let command = command_line(text)?;
    let words = || command.split_whitespace();
    let ruled = words().any(|w| reverses(w) || PHRASINGS.iter().any(|(phrase, _)| phrase[0] == w));
    let argued = words()
        .skip(1)
        .any(|w| is_flag(w) || core(w).contains(['/', '=']));
    (prompted || (argued && !ruled)).then_some(command)
}

/// The command line `text` is, after a `$ ` prompt if any and without a shell comment
/// (after ` #`): a lower-case program name, after the environment variables set for it if
/// any, then arguments, flags, paths; no function words, no capitals but in flags and
/// variables, at most twelve words. `None` when it does not look like one.
fn command_line(text: &str) -> Option<&str> {
    let tail = text.trim_start();
    let tail = tail.strip_prefix("$ ").unwrap_or(tail);
    let command = tail.split(" #").next().unwrap_or(tail).trim_end();
    let words: Vec<&str> = command.split_whitespace().collect();
    // The program, after any environment variables set for it (`RUST_LOG=debug cargo run`).
    let is_assignment = |w: &&str| {
        w.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
    };
    let at = words.iter().position(|w| !is_assignment(w))?;
    let program = words[at];
    // A script run by its path from here (`./gradlew`, `./x.py`, `../cargo.sh`) is a program,
    // and so is one that opens a subshell (`(cd .. && cargo run) > out`).
    let name = program
        .trim_start_matches('(')
        .trim_start_matches("../")
        .trim_start_matches("./");
    let looks_like_a_command = (1..=12).contains(&words.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
        // The program may be a word ("just").
        && words.iter().enumerate().all(|(i, w)| {
            let argument = i == at
                || !FUNCTION_WORDS.contains(&w.to_lowercase().as_str())
                && !w.starts_with(|c: char| c.is_uppercase())
                && !w.ends_with(['.', ',', ';', '?', '!']);
            let operator = matches!(*w, "." | ".." | "&&" | "|" | "--");
            is_flag(w) || is_value(core(w)) || argument || operator
        });
    (looks_like_a_command && (words.len() >= 2 || is_value(core(program)))).then_some(command)
}

/// True when `old` and `new` are each a command and no more ([`whole_command`]), another
/// one, that shares half the words of the shorter or more: the same command with its
/// program, a subcommand, a flag or an argument changed ("git checkout -b my-fix" → "git
/// switch -c my-fix", "prek run --last-commit" → "just hooks run --last-commit", "pip
/// install -U blue" → "pip install -U ruff"). Two commands with little in common may be
/// two steps ("cargo build" and "cargo test --all").
fn command_changed(old: &str, new: &str) -> Option<bool> {
    let (a, b) = match (whole_command(old), whole_command(new)) {
        (Some(a), Some(b)) => (a, b),
        // One a command for sure, the other a command line: the same task run another way
        // ("hatch --env docs run serve" → "just docs-serve").
        (Some(a), None) => return same_target(a, command_line(new)?).then_some(true),
        (None, Some(b)) => return same_target(command_line(old)?, b).then_some(true),
        (None, None) => return None,
    };
    let same_task = same_target(a, b);
    let (a, b): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    let shared = a.iter().filter(|w| b.contains(w)).count();
    Some(a != b && (shared * 2 >= a.len().min(b.len()) || same_task))
}

/// True when two command lines are one task run by another program or another way: the
/// words of the shorter one's arguments, cut at `-`, `_`, `.`, `/` and `:` (parts of two
/// letters or more), are the other's, but for one in three at most, and at least one is
/// ("hatch --env docs run serve" and "just docs-serve", "pdm run pytest
/// tests.test_unstructure" and "just test tests/test_unstructure.py"). Two steps share less
/// ("just docs-build --watch" and "just docs-serve": `build` is not `serve`).
fn same_target(a: &str, b: &str) -> bool {
    // After the variables set for it (`RUST_LOG=debug cargo run`) and the program.
    let parts = |command: &str| -> BTreeSet<String> {
        command
            .split_whitespace()
            .skip_while(|w| w.contains('='))
            .skip(1)
            .flat_map(|w| w.split(|c: char| !c.is_alphanumeric()))
            .filter(|p| p.chars().count() >= 2)
            .map(str::to_lowercase)
            .collect()
    };
    let (a, b) = (parts(a), parts(b));
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    let shared = short.intersection(long).count();
    a != b && shared >= 1 && shared * 3 >= short.len() * 2
}

/// True unless each of `a` and `b` names a value the other does not ([`values`]): a value
/// changed from one to the other (a port, a version, a command, a path), so they are two
/// states of one fact rather than one statement reworded. A value only added or only dropped
/// (a version mentioned in passing, a link) changes nothing, nor does a typo fixed in one (a
/// word of five letters or more with one letter dropped, added, or two swapped); but a code
/// span only one names, whose first word the other does not hold, where that one does not
/// hold every word of the other, is what that one is about: no same values.
///
/// ```
/// use oro_mem_text::same_values;
///
/// assert!(!same_values("The staging API runs on port 8080", "The staging API runs on port 9090"));
/// assert!(same_values("Run `just fmt` before committing", "Always run `just fmt` before a commit"));
/// assert!(same_values("ruff is written in Rust (1.63.0).", "ruff is written in Rust."));
/// // A typo fixed in a value changes no value; a letter for another may (`eslint`, `tslint`).
/// assert!(same_values("First, try `goftumpt -w .`", "First, try `gofumpt -w .`"));
/// assert!(!same_values("Lint with `eslint`", "Lint with `tslint`"));
/// // A command only one names is a mention in passing where that one says all the other
/// // says; where it does not, and the other does not name it, it is what that one is about.
/// assert!(same_values("Run the tests with `pytest`", "Run the tests"));
/// assert!(!same_values("`just test` runs all Biome tests", "Biome runs Prettier comparison tests"));
/// ```
pub fn same_values(a: &str, b: &str) -> bool {
    let Some((a, b)) = two_statements(a, b) else {
        return true;
    };
    let (a, b) = (&*a, &*b);
    let (a_text, b_text) = (a, b);
    let (a, b) = (values(a), values(b));
    let stemmer = Stemmer::english();
    // Each of `x` is one of `y`, or one of `y` with a typo fixed (`goftumpt`, `gofumpt`), or
    // the page one of `y` names, named relative to it.
    let within = |x: &BTreeSet<String>, y: &BTreeSet<String>| {
        x.iter().all(|v| {
            y.contains(v)
                || y.iter()
                    .any(|w| is_typo(v, w, true, &stemmer) || same_page(v, w))
        })
    };
    // A value only one of them names is a mention in passing when that one says all the
    // other says besides ("ruff is written in Rust (1.63.0) today"); where it does not, the
    // value is what it is about ("`just test` runs all Biome tests" against "Biome runs
    // Prettier compatibility tests": the same common words, another statement).
    match (within(&a, &b), within(&b, &a)) {
        (true, true) => true,
        (true, false) => in_passing(b_text, &b, &a, a_text, &stemmer),
        (false, true) => in_passing(a_text, &a, &b, b_text, &stemmer),
        (false, false) => false,
    }
}

/// True when the values `text` names beside those of `other` (`values`, `other_values`) are
/// mentions in passing: `text` says all `other` says besides, or each is no code span, or
/// the other names what it is of (a command's first word: `just` of `just test`).
fn in_passing(
    text: &str,
    values: &BTreeSet<String>,
    other_values: &BTreeSet<String>,
    other: &str,
    stemmer: &Stemmer,
) -> bool {
    let theirs = word_stems(other, |_| true, stemmer);
    // Code spans only: a number, a link or a hyphenated word has rules of its own (`10` for
    // "ten", "hard-code" for "hardcode").
    let head_named = values.difference(other_values).all(|v| {
        !text.contains(&format!("`{v}"))
            || v.split(|c: char| !c.is_alphanumeric())
                .find(|w| !w.is_empty())
                .is_none_or(|w| theirs.contains(stemmer.stem(&w.to_lowercase()).as_ref()))
    });
    head_named || says_besides(text, other, stemmer)
}

/// True when every content word of `other` is one of `text`'s, in some form ([`same_values`]).
fn says_besides(text: &str, other: &str, stemmer: &Stemmer) -> bool {
    word_stems(other, is_content, stemmer).is_subset(&word_stems(text, is_content, stemmer))
}

/// The stems of the words of `text`'s tokens that `keep` keeps, a token's alphanumeric parts
/// each (`just`, `test` of `` `just test` ``).
fn word_stems(text: &str, keep: impl Fn(&str) -> bool, stemmer: &Stemmer) -> BTreeSet<String> {
    tokens(text)
        .into_iter()
        .filter(|t| keep(t))
        .flat_map(|t| {
            core(t)
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(|w| stemmer.stem(&w.to_lowercase()).into_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// True when `new` is `old` with a value changed and little else: the same statement of a
/// fact that moved on, which supersedes it. Read word by word (a code span, a URL, a path or
/// another value whole), with a diff: at least 70% of the shorter statement's words are the
/// other's, in order (where only values and names changed, as many words in common as
/// changed on either side will do: "Use Node 18" → "Use Node 20"), and of the words that
/// differ (other than short function words,
/// punctuation, and typo fixes: a plain word of four letters or more replaced by one within
/// a fifth of its letters, or by another form of itself; a value's word only by itself with a
/// letter dropped, added or two swapped; and a word only moved), some do and at most six
/// of them are plain words (any number of values may change), and one of these holds:
///
/// - **values replaced**: a value is dropped and one added (a port, a version, a path, a
///   command, a flag, an identifier, a number, a name), with at most two plain words changed
///   beside them, not counting the words that say what kind of value one is ("the
///   `ANTHROPIC_LIVE=1` environment variable enabled" → "the `--http-record` flag");
/// - **one word for another**, one of them a value or a name, in its place: the function
///   words around it the same (`Jest` → `Vitest`; not "run with `cargo t`" → "run quickly");
/// - **flags** only added or only dropped;
/// - **a list item** only added or only dropped: each change is values and names, or one
///   with `and`, `or` or a comma beside them (`` `a/` and `b/` `` → `` `b/` ``), or at most
///   three plain words with `and` or `or` at one end ("warnings" → "warnings or test
///   failures");
/// - **condensed around a value replaced**, or expanded: all one of them adds is values and
///   names standing for one the other named, and at least four content words are kept,
///   whatever else the longer one said ("When you're ready, send your pull request to the
///   **dev** branch" → "Send your pull request to the main branch").
///
/// A **rule reversed** is an update however short it is, when at least one word of what the
/// rule says is in both: one is negated and the other not
/// ([`same_polarity`](crate::same_polarity)) and no word changed but negations and `always`
/// ("Always squash" → "Never squash", where the share of words in common is a half); or each
/// word changed is the opposite of the word it replaced, and nothing else changed
/// ("Enable strict mode" → "Disable strict mode": a short list of words that reverse what a
/// rule prescribes, not those that pick another subject, such as `dev` and `prod`); or the
/// same words, with the two next to a word that orders them swapped ("Use pnpm instead of
/// npm" → "Use npm instead of pnpm"; `before`, `after`, `over`, `than`, `into`, …).
///
/// A value is what [`values`] reads as one, a number word, or a word of a quoted string
/// ("the \"ops alerts\" channel"); a name is a capitalized word inside a sentence. A
/// rewording changes plain words; a statement about something else shares too few.
///
/// ```
/// use oro_mem_text::changed_value;
///
/// assert!(changed_value("The staging API runs on port 8080", "The staging API runs on port 9090"));
/// assert!(changed_value(
///     "Format the code with `cargo +nightly fmt` before a commit",
///     "Format the code with `cargo fmt --all` before a commit",
/// ));
/// assert!(changed_value("The unit tests run on Jest", "The unit tests run on Vitest"));
/// assert!(changed_value(
///     "Logs go to the \"ops alerts\" channel",
///     "Logs go to the \"ops pages\" channel",
/// ));
/// assert!(changed_value("Lint `src/` and `tests/` in CI", "Lint `src/` in CI"));
/// assert!(changed_value("Do not commit the lockfile", "Commit the lockfile"));
/// assert!(!changed_value("Run the tests before you commit", "Always run the tests before committing"));
/// assert!(!changed_value("Use `gofumpt -w .` to format", "Use `goftumpt -w .` to format"));
/// ```
pub fn changed_value(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    if let Some(changed) = command_changed(old, new) {
        return changed;
    }
    if chooses_the_rejected(old, new) || chooses_the_rejected(new, old) || links_replaced(old, new)
    {
        return true;
    }
    let (quoted_old, quoted_new) = (with_bare_command(old), with_bare_command(new));
    let old = quoted_old.as_deref().unwrap_or(old);
    let new = quoted_new.as_deref().unwrap_or(new);
    let (a, b) = (tokens(old), tokens(new));
    if another_subject(&a, &b) || narrower_subject(&a, &b) {
        return false;
    }
    let (ka, mut kb): (Vec<String>, Vec<String>) = (keys(&a), keys(&b));
    // A link added, dropped or written another way to the same page is no change.
    for k in kb.iter_mut().filter(|k| !ka.contains(k)) {
        if let Some(same) = ka.iter().find(|o| same_linked_word(o, k)) {
            k.clone_from(same);
        }
    }
    let stemmer = Stemmer::english();
    let (mut same, mut same_content) = (0, 0);
    let (mut dropped, mut added) = (Vec::new(), Vec::new());
    let (mut function_dropped, mut function_added) = (Vec::<String>::new(), Vec::<String>::new());
    // Every change is values and names, or a list's conjunction with one; and one is that.
    let (mut as_list, mut listed) = (true, false);
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ka, &kb) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            same += old_range.len();
            same_content += a[old_range].iter().filter(|t| is_content(t)).count();
            continue;
        }
        // In the change or next to it: "3.12 or 3.13" → "3.12, 3.13, or 3.14".
        fn around<'t, 'a>(t: &'t [&'a str], r: &std::ops::Range<usize>) -> &'t [&'a str] {
            &t[r.start.saturating_sub(1)..(r.end + 1).min(t.len())]
        }
        let conjunction = around(&a, &old_range)
            .iter()
            .chain(around(&b, &new_range))
            .any(|t| matches!(t.to_lowercase().as_str(), "and" | "or" | ","));
        let gone: Vec<Word> = words(&a, old_range.clone());
        let came: Vec<Word> = words(&b, new_range.clone());
        // The function words changed with them ("with `cargo t`" → "quickly").
        function_dropped.extend(function_words(&a[old_range.clone()]));
        function_added.extend(function_words(&b[new_range.clone()]));
        if same_words(&gone, &came, &stemmer) {
            continue;
        }
        let named = named(&gone) + named(&came);
        // A plain item added to or dropped from a list ("warnings" → "warnings or test
        // failures"): `and` or `or` at one end of it, at most three words.
        let hunk = if old_range.is_empty() {
            &b[new_range.clone()]
        } else {
            &a[old_range.clone()]
        };
        let joined =
            |t: Option<&&str>| t.is_some_and(|t| matches!(t.to_lowercase().as_str(), "and" | "or"));
        let item = (old_range.is_empty() || new_range.is_empty())
            && (joined(hunk.first()) || joined(hunk.last()))
            && gone.len() + came.len() <= 3;
        // Items beside a conjunction: values and names only, not a clause (", as reviewers
        // are few").
        let items = conjunction && named > 0 && gone.len() + came.len() == named;
        as_list &= named == gone.len() + came.len() || items || item;
        listed |= items || item;
        dropped.extend(gone);
        added.extend(came);
    }
    // A word moved is no word changed ("read `a.md` before starting" → "before starting,
    // read `a.md`"), nor a plain word in another form ("1 approval" → "2 approvals").
    let key = |w: &Word| {
        let word = core(w.text).to_lowercase();
        match w.kind {
            Kind::Plain => stemmer.stem(&word).into_owned(),
            _ => word,
        }
    };
    cancel_common(&mut dropped, &mut added, |d, a| key(d) == key(a));
    let changed = dropped.len() + added.len();
    // A rule reversed: only negations and `always` changed, and with them what the rule says.
    // Decided before the share of words the two have in common, which a short rule cannot
    // keep with its one word changed ("Never squash merge" → "Always squash merge").
    let same_polarity = crate::same_polarity(old, new);
    let reversed = !same_polarity
        && same_content > 0
        && dropped.iter().chain(&added).all(|w| reverses(core(w.text)));
    // Or each word changed for its opposite, nothing else ("Enable strict mode" → "Disable
    // strict mode"; "Run the linter before the tests" → "after the tests").
    let opposed = same_polarity
        && same_content > 0
        && !dropped.is_empty()
        && dropped.len() == added.len()
        && dropped
            .iter()
            .all(|d| added.iter().any(|a| opposites(d.text, a.text)));
    // Or the same words with the two around an order's word swapped ("Use pnpm instead of
    // npm" → "Use npm instead of pnpm"; "Run lint before tests" → "Run tests before lint").
    let swapped = changed == 0 && swapped_around(&a, &b);
    if reversed || opposed || swapped {
        return true;
    }
    let shorter = a.len().min(b.len()).max(1);
    let plain = changed - named(&dropped) - named(&added);
    // A setting given another value keeps its name: `NODE_VERSION=18` → `NODE_VERSION=20`.
    let renamed = dropped
        .iter()
        .filter(|d| added.iter().any(|a| same_setting(d.text, a.text)))
        .count();
    // A short statement with only its values changed keeps every other word, but not 70% of
    // its words ("Use Node 18" → "Use Node 20"): as many words of it in common (a setting's
    // name among them) as values changed on either side will do there.
    let values = |words: &[Word]| words.iter().filter(|w| w.kind != Kind::Unit).count();
    let only_values = plain == 0 && same_content + renamed >= values(&dropped).max(values(&added));
    // Or condensed around a value replaced (or expanded): every word one of them adds is a
    // value or a name that stands for one the other named, whatever else the other said
    // ("When you're ready, send your pull request to the **dev** branch" → "Send your pull
    // request to the main branch").
    let only_named = |these: &[Word], those: &[Word]| {
        !these.is_empty() && named(these) == these.len() && named(those) > 0
    };
    let condensed = (only_named(&added, &dropped) || only_named(&dropped, &added))
        && same_content >= CONDENSED_WORDS;
    if (same * 10 < shorter * 7 && !only_values && !condensed) || plain > 6 || changed == 0 {
        return false;
    }
    // A name changed both on its own and inside a changed value: the same rule for another
    // subject ("Run `cargo test -p core` for the core crate"; "Run `cargo test -p cli` for
    // the cli crate"), both true. Not a tool: "Lint with ruff: `ruff check .`" → "Lint with
    // biome: `biome check .`" is the tool and its command changed.
    let subject = |words: &[Word]| {
        words.iter().any(|n| {
            n.kind == Kind::Name
                && words.iter().any(|v| {
                    v.kind == Kind::Value
                        && v.text
                            .to_lowercase()
                            .split(|c: char| !c.is_alphanumeric())
                            .any(|part| part == core(n.text).to_lowercase())
                })
        })
    };
    if subject(&dropped) && subject(&added) {
        return false;
    }
    // A qualifier turned into its complement ("non-Rust" for "Rust") beside other changes:
    // two rules for two cases ("if only non-Rust code changed, run A"; "if Rust code
    // changed, run B"), both true.
    if dropped
        .iter()
        .any(|d| added.iter().any(|a| complements(d.text, a.text)))
    {
        return false;
    }
    let one_side = dropped.is_empty() || added.is_empty();
    // The words that say what kind of value one is ("the `X` variable", "the `--y` flag")
    // change with it when a value is replaced by one of another kind.
    let kinds = dropped
        .iter()
        .chain(&added)
        .filter(|w| {
            w.kind == Kind::Plain && KIND_WORDS.contains(&core(w.text).to_lowercase().as_str())
        })
        .count();
    let replaced = named(&dropped) > 0 && named(&added) > 0 && plain - kinds <= 2;
    // One word for another in the same place: the words around it the same, function words
    // too ("build Puffin" → "build uv"; not "run with `cargo t`" → "run quickly", a value
    // dropped and the statement saying something else of its subject).
    cancel_common(&mut function_dropped, &mut function_added, |d, a| d == a);
    let in_place = function_dropped.is_empty() && function_added.is_empty();
    let one_for_one =
        dropped.len() == 1 && added.len() == 1 && named(&dropped) + named(&added) > 0 && in_place;
    // Flags only added or only dropped, with their arguments ("git commit" → "git commit -a
    // -m \"Update README\"").
    let flags = one_side
        && dropped.iter().chain(&added).any(|w| is_flag(w.text))
        && dropped
            .iter()
            .chain(&added)
            .all(|w| is_flag(w.text) || w.kind == Kind::Value);
    let list = one_side && as_list && listed;
    // What one statement named, said by the other to be on its way out ("Use the `v1` API" →
    // "The `v1` API is deprecated; use `v2`"), or back.
    let retired = one_side
        && dropped
            .iter()
            .chain(&added)
            .any(|w| RETIRING.contains(&core(w.text)));
    replaced || one_for_one || flags || list || retired || condensed
}

/// The function words of `tokens`, lower case ([`changed_value`]).
fn function_words(tokens: &[&str]) -> Vec<String> {
    tokens
        .iter()
        .filter(|t| !is_content(t) && t.chars().any(char::is_alphabetic))
        .map(|t| t.to_lowercase())
        .collect()
}

/// Takes out of `a` and `b` each element of `a` that `same` pairs with one of `b`, each of
/// `b` paired once: what is left is what one has and the other has not.
fn cancel_common<T>(a: &mut Vec<T>, b: &mut Vec<T>, same: impl Fn(&T, &T) -> bool) {
    let mut i = 0;
    while i < a.len() {
        if let Some(j) = b.iter().position(|y| same(&a[i], y)) {
            a.remove(i);
            b.remove(j);
        } else {
            i += 1;
        }
    }
}

/// The fewest content words a statement condensed around a value replaced keeps of the old
/// one ([`changed_value`]).
const CONDENSED_WORDS: usize = 4;

/// True when `new` states a newer state of the fact `old` states: the same statement with a
/// value changed ([`changed_value`]), or the same entry of a list with what it says of its
/// key changed ([`same_entry`]). What the write path and `consolidate` supersede.
///
/// ```
/// use oro_mem_text::updates;
///
/// assert!(updates("Deploys use pnpm 8", "Deploys use pnpm 9"));
/// assert!(updates("`lint.yml`: runs ruff", "`lint.yml`: runs ruff and mypy on every push"));
/// assert!(!updates("Run the tests before you commit", "Always run the tests before committing"));
/// ```
pub fn updates(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    (changed_value(old, new)
        || same_entry(old, new)
        || says_changed(old, new)
        || extends(old, new)
        || same_passage(old, new))
        && !says_beside(old, new)
        && !another_subject_after_a_lead_in(old, new)
        && !replaces_another(old, new)
}

/// True when `new` names what it is said instead of (`not X`, `instead of X`, `rather than
/// X`), and each such value shares no part with a value or word of `old`: `new` replaces
/// something else, and what `old` says holds beside it ("Use `lru_cache` from `_utils`" and
/// "Use `signature_without_evaluating_annotations` from `_utils` for it, not
/// `inspect.signature`"). A value of `old` in another form is `old`'s ("Use `npm install`"
/// and "Use `pnpm install`, not `npm i`"), and so is a value of one character ("Deploys use
/// pnpm 10, not 9" for "Deploys use pnpm 9").
fn replaces_another(old: &str, new: &str) -> bool {
    // The parts of a text two characters long or more; a value with none (`9`, `-v`) is
    // its parts of one character.
    let parts = |text: &str, shortest: usize| -> BTreeSet<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|p| p.chars().count() >= shortest)
            .map(str::to_lowercase)
            .collect()
    };
    let value_parts = |value: &str| {
        let long = parts(value, 2);
        if long.is_empty() {
            parts(value, 1)
        } else {
            long
        }
    };
    let b = tokens(new);
    let kb = keys(&b);
    let instead_of = |i: usize| i > 0 && rejecting(&kb, i - 1).is_some();
    let replaced: Vec<usize> = (0..b.len())
        .filter(|&i| is_value_token(b[i]) && instead_of(i))
        .collect();
    if replaced.is_empty() {
        return false;
    }
    let said = parts(old, 1);
    replaced
        .iter()
        .all(|&i| value_parts(b[i]).is_disjoint(&said))
}

/// The keys of `tokens` ([`keys`]) with each Markdown link, from its `[` to the word that
/// holds `](`, as one key, and the pages the links name, in order.
fn links_apart(tokens: &[&str]) -> (Vec<String>, Vec<String>) {
    let all = keys(tokens);
    let (mut out, mut pages) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < tokens.len() {
        let link = (tokens[i] == "[")
            .then(|| (i + 1..tokens.len()).find(|&j| tokens[j] == "[" || tokens[j].contains("](")))
            .flatten()
            .filter(|&j| tokens[j] != "[");
        match link.and_then(|j| Some((j, link_target(tokens[j], page)?))) {
            Some((j, target)) => {
                out.push("[link]".to_string());
                pages.push(target.to_string());
                i = j + 1;
            }
            None => {
                out.push(all[i].clone());
                i += 1;
            }
        }
    }
    (out, pages)
}

/// The fewest content words outside their links two statements [`links_replaced`] reads
/// share.
const LINKED_WORDS: usize = 3;

/// True when `old` and `new` are word for word the same outside their links, three content
/// words or more, and a link names another page, whatever its text: "try checking the [good
/// first issue label](…/issues?q=…good+first+issue…)" → "the [Beginner
/// label](…/issues?q=…Beginner)". Where one is read, moved (same page, [`same_page`]) or
/// not, is what a statement that points at it says.
fn links_replaced(old: &str, new: &str) -> bool {
    let ((ka, pa), (kb, pb)) = (links_apart(&tokens(old)), links_apart(&tokens(new)));
    ka == kb
        && pa.len() == pb.len()
        && ka
            .iter()
            .filter(|k| is_content(k) && *k != "[link]")
            .count()
            >= LINKED_WORDS
        && pa.iter().zip(&pb).any(|(x, y)| !same_page(x, y))
}

/// Where the words that say what follows them is not chosen (`not`, `instead of`, `rather
/// than`) start, when they end at `keys[i]`.
fn rejecting(keys: &[String], i: usize) -> Option<usize> {
    match (i.checked_sub(1).map(|j| keys[j].as_str()), keys[i].as_str()) {
        (_, "not") => Some(i),
        (Some("instead"), "of") | (Some("rather"), "than") => Some(i - 1),
        _ => None,
    }
}

/// Where `keys` name something a statement says not to choose: where the words that say so
/// start ([`rejecting`]) and the content word after them ("… the dev branch, not master").
fn rejection(keys: &[String]) -> Option<(usize, usize)> {
    (0..keys.len()).find_map(|i| {
        let start = rejecting(keys, i)?;
        (i + 1..keys.len())
            .find(|&j| is_content(&keys[j]))
            .filter(|&j| j == i + 1 || !keys[i + 1..j].iter().any(|k| is_content(k)))
            .map(|j| (start, j))
    })
}

/// True when `new` chooses what `old` said not to: `old` without its "not X" (to the end of
/// its clause) and `new` differ in one place, where `new` names X for what `old` chose, and
/// `new` rejects nothing ("Changes should be based on the dev branch, not master as master
/// is released code" → "Changes should be based on the master branch"; "Use pnpm, not npm" →
/// "Use npm"). A choice reversed, whatever kind of word names it.
fn chooses_the_rejected(old: &str, new: &str) -> bool {
    let (a, b) = (tokens(old), tokens(new));
    let (ka, kb) = (keys(&a), keys(&b));
    let Some((start, x)) = rejection(&ka) else {
        return false;
    };
    if rejection(&kb).is_some() {
        return false;
    }
    // The clause ends where a sentence does, or at `;`.
    let end = (x..a.len())
        .find(|&j| a[j] == ";" || a[j].ends_with(['.', ';', '!', '?']))
        .map_or(a.len(), |j| j + 1);
    let start = if start > 0 && a[start - 1] == "," {
        start - 1
    } else {
        start
    };
    let rejected = &ka[x];
    let kept: Vec<&String> = ka[..start].iter().chain(&ka[end..]).collect();
    let kb: Vec<&String> = kb.iter().collect();
    let mut hunks = similar::capture_diff_slices(similar::Algorithm::Myers, &kept, &kb)
        .into_iter()
        .filter(|op| op.tag() != similar::DiffTag::Equal);
    let (Some(op), None) = (hunks.next(), hunks.next()) else {
        return false;
    };
    let content = |keys: &[&String]| -> Vec<String> {
        keys.iter()
            .filter(|k| is_content(k))
            .map(|k| (*k).clone())
            .collect()
    };
    let (chose, chooses) = (content(&kept[op.old_range()]), content(&kb[op.new_range()]));
    !chose.is_empty() && !chose.contains(rejected) && chooses == [rejected.clone()]
}

/// The fewest content words of a statement [`same_passage`] reads as a passage.
const PASSAGE_WORDS: usize = 12;

/// True when `old` and `new` are one passage of a project's notes rewritten in part: each
/// names code (a code span, a path, an identifier with `_`, `.`, `::` or `(`), each has
/// twelve content words or more (not counting function words), and at least three in five of
/// the shorter one's content words are the other's, in order, but not all, and no word is
/// turned into its complement ("non-Rust" for "Rust": two rules for two cases). A passage
/// about code keeps that much of its words only when it is the same passage: in the real
/// edits of `updates-dev` and the PyPI archives (`fixtures/`), no pair that long and that
/// alike is about something else, and those that are not duplicates are updates ("Direct
/// `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with
/// `EngineCommandStarter` and …" → "… with `propose_submitting=False` because …"). Chat
/// turns are no such passages: two pleasantries keep as much of each other's words. What a
/// duplicate is the write path decides first.
///
/// ```
/// use oro_mem_text::same_passage;
///
/// let old = "Direct `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with \
///            `EngineCommandStarter` because `BaseWorker` already proposed Submitting. The \
///            ad hoc bundle path still uses the deprecated `Runner.execute_bundle()`.";
/// let new = "Direct `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with \
///            `EngineCommandStarter` because `BaseWorker` already proposed Submitting. Ad \
///            hoc bundle submissions use `BundleExecutionStarter`.";
/// assert!(same_passage(old, new));
/// assert!(!same_passage("Run the tests before you push", "Run the linter before you push"));
/// ```
pub fn same_passage(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    match kept_in_order(old, new) {
        Some(Kept { kept, shorter }) => {
            shorter >= PASSAGE_WORDS
                && names_code(old)
                && names_code(new)
                && kept * 5 >= shorter * 3
        }
        None => false,
    }
}

/// True when `text` names code: a code span, a path, an identifier with `_`, `.`, `::` or
/// `(`, a link's target.
fn names_code(text: &str) -> bool {
    values(text)
        .iter()
        .any(|v| v.contains([' ', '/', '_', '(']) || v.contains("::") || core(v).contains('.'))
        || text.contains('`')
}

/// The fewest content words of the older statement that a rewritten statement keeps in
/// order for [`rewritten`].
const REWRITTEN_WORDS: usize = 6;

/// True when `new`, which names code, rewrites `old` in part and keeps most of it: six of
/// its content words or more, in order, and at least half of the shorter one's, but not
/// all, and no word turned into its complement. [`extends`] reads such a pair as an update
/// when what `new` says anew names a value ("Open your terminal and navigate to the root
/// directory of the project" → "… to the `docs` subdirectory of the project"); without
/// one, it is the same statement reworded. Chat turns are no such statements: two replies
/// keep as many of each other's words and name other people and numbers.
fn rewritten(old: &str, new: &str) -> bool {
    names_code(new) && kept_most(old, new)
}

/// The most words before a verb that [`opening_subject`] and [`narrower_subject`] read as
/// a subject (after its determiner, for the second).
const SUBJECT_WORDS: usize = 4;

/// The subject a clause opens with: its content words before a verb ([`is_verb`]) among its
/// first few words, lower case, a code span's each (`uv --project <FOLDER> sync` and `uv
/// --project-all <FOLDER> sync` open with one subject, a flag changed); `None` when no verb
/// comes that early (an imperative: "build one string").
fn opening_subject(clause: &[&str]) -> Option<Vec<String>> {
    let verb = (1..clause.len().min(SUBJECT_WORDS + 1)).find(|&i| is_verb(clause[i]))?;
    let subject = &clause[..verb];
    subject
        .iter()
        .all(|t| t.chars().any(char::is_alphanumeric))
        .then(|| {
            keys(subject)
                .into_iter()
                .zip(subject)
                .filter(|(_, t)| is_content(t))
                .flat_map(|(k, _)| k.split_whitespace().map(str::to_string).collect::<Vec<_>>())
                .collect()
        })
}

/// True when `old` and `new` open with the same leading clause, word for word up to the
/// same comma, and go on with two subjects that share no word: two rules for one occasion
/// ("After a class rename in pydantic-ai, documentation should reference only the new
/// class"; "…, the test suite must use the new class"), not one rule rewritten. An entry of
/// a list ([`same_entry`]) is one, whatever it goes on with.
fn another_subject_after_a_lead_in(old: &str, new: &str) -> bool {
    let (Some((lead_a, rest_a)), Some((lead_b, rest_b))) =
        (old.split_once(", "), new.split_once(", "))
    else {
        return false;
    };
    let (a, b) = (tokens(lead_a), tokens(lead_b));
    if keys(&a) != keys(&b) || a.iter().filter(|t| is_content(t)).count() < 2 {
        return false;
    }
    match (
        opening_subject(&tokens(rest_a)),
        opening_subject(&tokens(rest_b)),
    ) {
        (Some(x), Some(y)) => {
            !x.is_empty()
                && !y.is_empty()
                && !x.iter().any(|w| y.contains(w))
                && !same_entry(old, new)
        }
        _ => false,
    }
}

/// True when `new` keeps six or more of `old`'s content words in order, and half of the
/// shorter one's, but not all, and turns none into its complement ([`rewritten`]).
fn kept_most(old: &str, new: &str) -> bool {
    kept_in_order(old, new)
        .is_some_and(|Kept { kept, shorter }| kept >= REWRITTEN_WORDS && kept * 2 >= shorter)
}

/// True when each of `old` and `new` names a value the other does not (links' targets
/// counted) and the new one is no typo fixed: one value replaced by another, whatever else
/// was reworded.
fn replaces_a_value(old: &str, new: &str) -> bool {
    let stemmer = Stemmer::english();
    let (a, b) = (values(old), values(new));
    let dropped: Vec<&String> = a.difference(&b).collect();
    !dropped.is_empty()
        && b.difference(&a)
            .any(|v| !dropped.iter().any(|w| is_typo(w, v, true, &stemmer)))
}

/// How much of two statements' content words one keeps of the other, in order
/// ([`kept_in_order`]).
struct Kept {
    /// The content words kept, in order.
    kept: usize,
    /// The content words of the shorter statement.
    shorter: usize,
}

/// The content words (not function words) that `old` and `new` share in order, and how
/// many the shorter has; `None` when they have the same content words, or when a word of
/// one is turned into its complement in the other ("non-Rust" for "Rust": two rules for two
/// cases).
fn kept_in_order(old: &str, new: &str) -> Option<Kept> {
    let content = |text: &str| -> Vec<String> {
        let tokens = tokens(text);
        let keys = keys(&tokens);
        tokens
            .iter()
            .zip(keys)
            .filter(|(t, _)| is_content(t))
            .map(|(_, k)| k)
            .collect()
    };
    let (a, b) = (content(old), content(new));
    if a == b {
        return None;
    }
    let mut kept = 0;
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            kept += old_range.len();
        }
        if a[old_range]
            .iter()
            .any(|x| b[new_range.clone()].iter().any(|y| complements(x, y)))
        {
            return None;
        }
    }
    Some(Kept {
        kept,
        shorter: a.len().min(b.len()),
    })
}

/// The [`keys`] of `text`'s words, without punctuation.
fn alphanumeric_keys(text: &str) -> Vec<String> {
    keys(&tokens(text))
        .into_iter()
        .filter(|k| k.chars().any(char::is_alphanumeric))
        .collect()
}

/// The fewest words of a statement that [`extends`] reads as held by a longer one. Fewer
/// than [`holds_the_other`]'s eight: what is added must name a new value too, and a short
/// rule with a flag or a version added is its newer state ("Tests run with pytest -x" →
/// "… -x -n auto"). Four would read a pointer as one ("Node 18 is required (see
/// `.nvmrc`)", a duplicate in the written pairs).
const EXTENDED_WORDS: usize = 5;

/// True when `new` says all `old` says, word for word and in order (`old` of five words or
/// more), and more, and what it adds names a value `old` does not (a command, a flag, a
/// path, an identifier; not a link, nor a word of `old` put in a code span), or makes an
/// exception to it (`except`, `unless`, `excluding`, `other than`, `only if`, `only when`):
/// the rule broadened by a fact or narrowed, which supersedes it, as it loses nothing of it ("… the
/// expected value" → "… the expected value when running `pytest
/// --inline-snapshot=create`"; "always add `from __future__ import annotations` first" →
/// "… first (except in documentation snippets)"); or a passage about code rewritten in part
/// ([`same_passage`]) that names a value it did not (`WorkspaceResolvingEngineCommandStarter`
/// added to prefect's notes on `ProcessWorker`); or a shorter statement that names code,
/// rewritten keeping most of its words (six content words or more, in order, and half of
/// the shorter one's), that names a new value or replaces one ("… navigate to the root
/// directory of the project" → "… to the `docs` subdirectory of the project"). A clause
/// added that names no new value and makes no exception (a reason, a hedge) repeats
/// the statement; one dropped, whatever it said, condenses it.
///
/// ```
/// use oro_mem_text::extends;
///
/// let old = "On first run with an empty snapshot, pytest fills in the expected value.";
/// let new = "On first run with an empty snapshot, pytest fills in the expected value when \
///            running `pytest --inline-snapshot=create`.";
/// assert!(extends(old, new));
/// assert!(!extends(new, old));
/// assert!(extends(old, "On first run with an empty snapshot, pytest fills in the \
///     expected value, unless it runs in CI."));
/// assert!(!extends(old, "On first run with an empty snapshot, pytest fills in the \
///     expected value, which saves a lot of typing."));
/// ```
pub fn extends(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    if joins_a_clause(old, new) || adds_a_sentence(old, new) {
        return true;
    }
    let (a, b) = (alphanumeric_keys(old), alphanumeric_keys(new));
    let holds = a.len() >= EXTENDED_WORDS && b.len() > a.len() && holds_in_order(&a, &b);
    // A passage rewritten in part that names new code: new facts, whatever else it rewords;
    // but not code named where the old one pointed at it ("this directory" → "the `macos/`
    // directory": the same thing, said).
    if !holds {
        let new_value = || names_a_new_value(old, &unpointed(old, new));
        return (same_passage(old, new) && new_value())
            || (rewritten(old, new) && (new_value() || replaces_a_value(old, new)));
    }
    let excepted = |keys: &[String]| {
        keys.iter().enumerate().any(|(i, k)| {
            let next = keys.get(i + 1).map(String::as_str);
            matches!(k.as_str(), "except" | "excluding" | "unless")
                || (k == "other" && next == Some("than"))
                || (k == "only" && matches!(next, Some("if" | "when")))
        })
    };
    (excepted(&b) && !excepted(&a)) || names_a_new_value(old, new)
}

/// The fewest content words of a clause [`joins_a_clause`] reads as a fact added.
const JOINED_WORDS: usize = 2;

/// True when `new` is all of `old`, as written, with a clause joined to it by `, and` or
/// `;` that says something more (two content words or more): a fact added to the statement,
/// which loses nothing of it ("Use pnpm" → "Use pnpm, and commit the lockfile"; "Write your
/// asserts as `expected == actual` to line them up nicely" → "…, and leave an empty line
/// before them"), or by `and` alone when it names a new value ("Integration tests need
/// Docker" → "… and a Postgres container on port 5433"). A clause that gives a reason or a
/// place ("…, so CI stays green", "… before starting the server") restates it
/// ([`extends`]).
fn joins_a_clause(old: &str, new: &str) -> bool {
    let ends = |c: char| c.is_whitespace() || matches!(c, '.' | ':' | ';' | ',');
    let (old, new) = (old.trim_end_matches(ends), new.trim());
    let Some(rest) = new.strip_prefix(old) else {
        return false;
    };
    match rest
        .strip_prefix(", and ")
        .or_else(|| rest.strip_prefix("; "))
    {
        Some(clause) => content_words(clause) >= JOINED_WORDS,
        // Joined by `and` alone, what it adds names a value: "Integration tests need Docker
        // and a Postgres container on port 5433", not "Keep it short and simple".
        None => rest.strip_prefix(" and ").is_some_and(|clause| {
            content_words(clause) >= JOINED_WORDS && names_a_new_value(old, new)
        }),
    }
}

/// How many content words `text` has (not function words, not punctuation).
fn content_words(text: &str) -> usize {
    tokens(text).into_iter().filter(|t| is_content(t)).count()
}

/// The sentences of `text`: cut after `.`, `!` or `?` where white space and a capital letter
/// (or a code span) follow, each trimmed.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for w in chars.windows(3) {
        let [(_, end), (_, space), (next_at, next)] = [w[0], w[1], w[2]];
        if matches!(end, '.' | '!' | '?')
            && space.is_whitespace()
            && (next.is_uppercase() || next == '`')
        {
            out.push(text[start..next_at].trim());
            start = next_at;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// True when `new` is all of `old`, as written, with a sentence of two content words or more
/// added before, between or after its sentences: a fact added, as a clause joined is
/// ([`joins_a_clause`]). "Then open a PR for the release and get it approved. Once merged,
/// the release workflow publishes it." → "… approved. Even with bypass permissions, always
/// use a PR so CI runs before the release publishes. Once merged, …".
fn adds_a_sentence(old: &str, new: &str) -> bool {
    // As stated, a statement's full stop is dropped ([`as_stated`]).
    let words = |text: &str| {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        text.trim_end_matches('.').to_string()
    };
    let (old, parts) = (words(old), sentences(new));
    parts.len() >= 2
        && (0..parts.len()).any(|i| {
            let rest = [&parts[..i], &parts[i + 1..]].concat().join(" ");
            content_words(parts[i]) >= JOINED_WORDS && words(&rest) == old
        })
}

/// `new` without the words that stand where `old` has only a word that points at something
/// ("this", "that", "these", "those", "it", "here", "there").
fn unpointed(old: &str, new: &str) -> String {
    const POINTERS: &[&str] = &["here", "it", "that", "there", "these", "this", "those"];
    let (a, b) = (tokens(old), tokens(new));
    let (ka, kb) = (keys(&a), keys(&b));
    let mut kept: Vec<&str> = Vec::with_capacity(b.len());
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ka, &kb) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        let pointed =
            tag == similar::DiffTag::Replace && ka[old_range].iter().all(|k| listed(POINTERS, k));
        if !pointed {
            kept.extend(&b[new_range]);
        }
    }
    kept.join(" ")
}

/// True when `new` names a value that `old` does not: not a link, a word of `old` put in a
/// code span, nor one of its values with a typo fixed ([`extends`]).
fn names_a_new_value(old: &str, new: &str) -> bool {
    let stemmer = Stemmer::english();
    // Links and URLs as written: a URL (with its scheme) is a reference, not a fact.
    let old_values = values_in(old, page_as_written);
    let old_words: BTreeSet<String> = old
        .split_whitespace()
        .map(|w| core(w).to_lowercase())
        .collect();
    // A link's target: a reference, not a fact.
    let targets: BTreeSet<&str> = new
        .split_whitespace()
        .filter_map(|w| link_target(w, page_as_written))
        .collect();
    values_in(new, page_as_written).iter().any(|v| {
        !old_values.contains(v)
            && !v.contains("://")
            && !targets.contains(v.as_str())
            && !old_words.contains(&v.to_lowercase())
            && !old_words.iter().any(|w| hyphenated(w, v))
            && !old_values.iter().any(|w| is_typo(w, v, true, &stemmer))
    })
}

/// `key` says that what a statement states holds beside something else: `also`, `too`.
fn says_also(key: &str) -> bool {
    matches!(key, "also" | "too")
}

/// True when one of `a` and `b` says with `also` or `too` that what it states holds beside
/// what the other states, and names a value or a name the other does not: "Deploys happen
/// on Tuesdays" and "Deploys now also happen on Fridays", "Logs go to stdout" and "Logs now
/// also go to Sentry". Both hold: no update, and no duplicate either. With nothing else
/// named ("Tests also run in Docker") it repeats the other.
///
/// ```
/// use oro_mem_text::says_beside;
///
/// assert!(says_beside("Deploys happen on Tuesdays", "Deploys now also happen on Fridays"));
/// assert!(!says_beside("Tests run in Docker", "Tests also run in Docker"));
/// assert!(!says_beside("Deploys happen on Tuesdays", "Deploys happen on Fridays"));
/// // Chat: nothing named.
/// assert!(!says_beside("Thanks! Talk to you later!", "Me too. Talk to you later!"));
/// ```
pub fn says_beside(a: &str, b: &str) -> bool {
    let Some((a, b)) = two_statements(a, b) else {
        return false;
    };
    let (a, b) = (&*a, &*b);
    let beside = |k: &[String]| k.iter().any(|k| says_also(k));
    let (ta, tb) = (tokens(a), tokens(b));
    let (ka, kb) = (keys(&ta), keys(&tb));
    // A value or a name of one that the other does not name: what holds beside.
    let names_another = |t: &[&str], k: &[String], other: &[String]| {
        (0..t.len())
            .any(|i| is_content(t[i]) && kind(t, i) != Kind::Plain && !other.contains(&k[i]))
    };
    beside(&ka) != beside(&kb) && (names_another(&ta, &ka, &kb) || names_another(&tb, &kb, &ka))
}

/// Words with which a statement says that a value changed: "The docs **moved** to `site/`",
/// "Max upload size was **raised** to 25 MB", "Auth tokens **now** expire after 15 minutes".
/// Sorted.
const CHANGE_WORDS: &[&str] = &[
    "actually",
    "bumped",
    "changed",
    "correction",
    "decreased",
    "downgraded",
    "increased",
    "lowered",
    "migrated",
    "moved",
    "now",
    "raised",
    "reduced",
    "renamed",
    "replace",
    "replaced",
    "switch",
    "switched",
    "upgraded",
];

/// The most words [`replacing_words`] reads as what replaces another.
const REPLACING_WORDS: usize = 3;

/// The positions in `tokens` (their keys `keys`) of the words said in place of another: the
/// content words, up to three, right before `instead of`, `rather than` or `, not` ("use
/// **ruff format** instead of black", "**vite**, not webpack"), or right after the `to` of
/// `from … to` ("from yarn to **pnpm**"). A function word, a word that leads to a tool
/// (`use`, `with`: [`TOOL_PLACES`]) or punctuation ends them.
fn replacing_words(tokens: &[&str], keys: &[String]) -> BTreeSet<usize> {
    let key = |i: usize| keys.get(i).map(String::as_str);
    let word = |i: usize| {
        is_content(tokens[i]) && core(tokens[i]) == tokens[i] && !listed(TOOL_PLACES, tokens[i])
    };
    let mut out = BTreeSet::new();
    for i in 0..keys.len() {
        let ends_before = match (key(i), key(i + 1)) {
            (Some("instead"), Some("of")) | (Some("rather"), Some("than")) => Some(i),
            (Some(","), Some("not")) => Some(i),
            _ => None,
        };
        if let Some(end) = ends_before {
            out.extend(
                (0..end)
                    .rev()
                    .take_while(|&j| word(j))
                    .take(REPLACING_WORDS),
            );
        }
        if key(i) == Some("from") {
            // "from Y to X": Y of a few words, then what replaces it.
            if let Some(to) =
                (i + 2..(i + 2 + REPLACING_WORDS).min(keys.len())).find(|&j| key(j) == Some("to"))
            {
                out.extend(
                    (to + 1..keys.len())
                        .take_while(|&j| word(j))
                        .take(REPLACING_WORDS),
                );
            }
        }
    }
    out
}

/// The positions in `keys` of the words a statement names as what was replaced:
///
/// - the content words, up to three, past an article or an opening quote, after `not` said
///   of a thing (after a content word or punctuation), `instead of`, `rather than`, `no
///   longer`, `stop using`, `(was`, `(formerly` or `(previously`, between `from` and `to`, or
///   between `replace` and `with` ("Deploys use pnpm 9, not **pnpm 8**", "Unit tests run on
///   Vitest (was **Jest**)", "moved from **pnpm 8** to pnpm 9", "Replace **Jest** with
///   Vitest");
/// - the content words, up to three, before `anymore` ("Don't **use npm** anymore");
/// - the word before `is no longer`, `isn't … anymore` or `was replaced by` ("**`npm test`**
///   is no longer used", "**Jest** was replaced by Vitest");
/// - unless `said_of_a_thing`, also the word right after a lone `from` or after `not` said
///   of an action ("from **now** on", "do not **use** it").
fn replaced_words(keys: &[String], said_of_a_thing: bool) -> BTreeSet<usize> {
    let key = |i: Option<usize>| i.and_then(|i| keys.get(i)).map(String::as_str);
    // Past an article and the quote that opens a quoted value ("not the staging one",
    // "(formerly \"Contribution Proposal\")").
    let run = |from: usize| {
        let from = (from..keys.len())
            .find(|&j| !matches!(keys[j].as_str(), "\"" | "\u{201c}" | "the" | "a" | "an"))
            .unwrap_or(keys.len());
        (from..keys.len())
            .take_while(|&j| is_content(&keys[j]))
            .take(REPLACING_WORDS)
    };
    let mut out = BTreeSet::new();
    for i in 0..keys.len() {
        let (before, at) = (key(i.checked_sub(1)), key(Some(i)));
        // A value's trailing comma is no token ("pnpm 9, not pnpm 8"): `not` after a
        // content word says what was replaced, after a function word ("do not") what not to do.
        let after_a_thing =
            before.is_some_and(|w| !w.chars().any(char::is_alphanumeric) || is_content(w));
        match (before, at) {
            (_, Some("not")) if after_a_thing => out.extend(run(i + 1)),
            (Some("instead"), Some("of"))
            | (Some("rather"), Some("than"))
            | (Some("("), Some("was" | "formerly" | "previously")) => out.extend(run(i + 1)),
            (Some("no"), Some("longer")) => {
                out.extend(run(i + 1));
                if let (Some("is" | "are"), Some(named)) = (key(i.checked_sub(2)), i.checked_sub(3))
                {
                    if is_content(&keys[named]) {
                        out.insert(named);
                    }
                }
            }
            (_, Some("from")) => {
                let words: Vec<usize> = run(i + 1).collect();
                match words.last() {
                    Some(&last) if key(Some(last + 1)) == Some("to") => out.extend(words),
                    _ if said_of_a_thing => {}
                    _ => out.extend(words.first()),
                }
            }
            // "Replace **Jest** with Vitest", "**Jest** was replaced by Vitest".
            (_, Some("replace" | "replaces" | "replaced")) => {
                let words: Vec<usize> = run(i + 1).collect();
                if let Some(&last) = words.last() {
                    if matches!(key(Some(last + 1)), Some("with" | "by")) {
                        out.extend(words);
                    }
                }
                if matches!(before, Some("was" | "were" | "is" | "are" | "been"))
                    && matches!(key(Some(i + 1)), Some("with" | "by"))
                {
                    out.extend(i.checked_sub(2).filter(|&j| is_content(&keys[j])));
                }
            }
            // "Stop using **`black`**".
            (Some("stop"), Some("using" | "use")) => out.extend(run(i + 1)),
            // "Don't **use `black`** anymore", "**`black`** isn't **used** anymore".
            (_, Some("anymore")) => {
                let words: Vec<usize> = (0..i)
                    .rev()
                    .take_while(|&j| is_content(&keys[j]) && !keys[j].ends_with("n't"))
                    .take(REPLACING_WORDS)
                    .collect();
                let before = words.last().map_or(i, |&j| j);
                if let (Some("isn't" | "aren't"), Some(named)) =
                    (key(before.checked_sub(1)), before.checked_sub(2))
                {
                    if is_content(&keys[named]) {
                        out.insert(named);
                    }
                }
                out.extend(words);
            }
            (_, Some("not")) if !said_of_a_thing => out.extend(run(i + 1).take(1)),
            _ => {}
        }
    }
    out
}

/// The word `keys[i]` says that a value changed: a word of [`CHANGE_WORDS`], `formerly`,
/// `previously`, `no longer`, `anymore`, or the `stop` of `stop using`.
fn marks_a_change(keys: &[String], i: usize) -> bool {
    listed(CHANGE_WORDS, &keys[i])
        || matches!(keys[i].as_str(), "formerly" | "previously")
        || (keys[i] == "longer" && i > 0 && keys[i - 1] == "no")
        || (keys[i] == "no" && keys.get(i + 1).is_some_and(|k| k == "longer"))
        || (keys[i] == "stop" && keys.get(i + 1).is_some_and(|k| k == "using" || k == "use"))
        || keys[i] == "anymore"
}

/// `word` says that a value changed ([`CHANGE_WORDS`]), or names the one replaced
/// ("instead of", "rather than").
fn says_a_change(word: &str) -> bool {
    listed(CHANGE_WORDS, word)
        || ["instead", "rather"]
            .iter()
            .any(|w| word.eq_ignore_ascii_case(w))
}

/// How near a value a word that retires it stands ([`retires`]): "`crush.json` is still
/// supported but is deprecated".
const RETIRED_WITHIN: usize = 6;

/// True when the new statement (`b`, its keys `kb`) says of a value that the old one (its
/// keys `ka`) named that it is on its way out ([`RETIRING`]: deprecated, removed, …), a word
/// the old one did not say, within a few words of it. [`says_changed`] reads it of a
/// statement that keeps most of the old one ([`kept_most`]): a project's name beside
/// "deprecated" in another of its rules says nothing of the first.
fn retires(ka: &[String], b: &[&str], kb: &[String]) -> bool {
    (0..b.len()).any(|i| {
        RETIRING.contains(&kb[i].as_str())
            && !ka.contains(&kb[i])
            && (i.saturating_sub(RETIRED_WITHIN)..(i + RETIRED_WITHIN + 1).min(b.len()))
                .any(|j| is_value_token(b[j]) && ka.contains(&kb[j]))
    })
}

/// True when `new` says in so many words that a value of `old` changed: with a word that says so
/// and `old` does not ("moved", "switched", "raised", "upgraded", "now", "formerly", "no longer",
/// …), or naming a value or a name of `old`'s as what it replaces ("from Jest to Vitest", "`httpx`
/// instead of `requests`", "rather than", "pnpm 9, not pnpm 8", "(was Jest)", "`black` is no longer
/// used", "Replace Jest with Vitest", "Stop using `black`", "Don't use npm anymore"), and nothing
/// else as replaced ("E2E tests run on Playwright (formerly Cypress)" says nothing of Jest). And
/// `new` says what `old` says but its value: a word of `old` is not in `new` (or only as the one
/// replaced), at most two are not in it at all, they share a word (or the value replaced), and what
/// `new` adds is values and names (a word that leads to a tool, `use` or `with`, aside), or one
/// word for one ("staging" → "production", not a typo fixed), and not the subject it starts with
/// replaced with another word ("Unit tests use Jest" → "E2E tests now use Playwright"). "also" or
/// "too" add a fact beside. Such a statement shares too few words with the old one for
/// [`changed_value`], or still names the old value. Or `new`, keeping most of `old`'s words, says
/// of a value `old` named that it is deprecated, removed, obsolete or unsupported, within a few
/// words of it, which `old` did not say ("`crush.json` is still supported but is deprecated").
///
/// ```
/// use oro_mem_text::says_changed;
///
/// assert!(says_changed("We use Jest for tests", "We switched from Jest to Vitest for tests"));
/// assert!(says_changed("We use Jest", "We switched from Jest to Vitest"));
/// assert!(says_changed("The docs live in `docs/`", "The docs moved to `site/`"));
/// assert!(says_changed("Max upload size is 10 MB", "Max upload size was raised to 25 MB"));
/// assert!(says_changed(
///     "Run `make test` before pushing",
///     "Run `just test` before pushing instead of `make test`",
/// ));
/// assert!(says_changed("Deploys use pnpm 8", "Deploys now use pnpm 9, not pnpm 8"));
/// assert!(says_changed("Unit tests run on Jest", "Unit tests run on Vitest (was Jest)"));
/// // Nothing of the old statement changed, or nothing said of it.
/// assert!(!says_changed("Deploys use pnpm 8", "Deploys now use pnpm 8"));
/// assert!(!says_changed("The docs live in `docs/`", "The API moved to `v2/`"));
/// assert!(!says_changed("Tests run with pytest", "Tests now also run on Windows"));
/// ```
pub fn says_changed(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    let (a, b) = (tokens(old), tokens(new));
    let (ka, kb) = (keys(&a), keys(&b));
    if retires(&ka, &b, &kb) && kept_most(old, new) {
        return true;
    }
    // The words `new` says in place of the one it replaces ("**vite** instead of webpack",
    // "from yarn to **pnpm**") name what they say, as that one does, in lower case too.
    let replacing = replacing_words(&b, &kb);
    let (replaced_a, replaced_b) = (replaced_words(&ka, false), replaced_words(&kb, false));
    let named = |t: &[&str], i: usize| kind(t, i) != Kind::Plain;
    // A value or a name of `old`'s (not named as replaced there too) that `new` names as
    // replaced; any word of `old`'s, when `new` says what replaces it.
    let named_replaced = replaced_b.iter().any(|&i| {
        is_content(b[i])
            && (named(&b, i) || !replacing.is_empty())
            && (0..a.len()).any(|j| ka[j] == kb[i] && !replaced_a.contains(&j))
    });
    // What `new` names as replaced is no word of `old`'s: another thing changed ("E2E tests
    // run on Playwright (formerly Cypress)" says nothing of "Unit tests run on Jest").
    let said_replaced = replaced_words(&kb, true);
    if !said_replaced.is_empty()
        && !said_replaced
            .iter()
            .any(|&i| (0..a.len()).any(|j| ka[j] == kb[i]))
    {
        return false;
    }
    // A word that says a change, which `old` did not say ("instead of" and "rather than"
    // say it only of what `old` named: "snapshot tests rather than unit tests" is a rule).
    let marked = (0..b.len()).any(|i| marks_a_change(&kb, i) && !ka.contains(&kb[i]));
    // "Tests now also run on Windows" adds a fact beside the old one.
    let beside = kb.iter().any(|k| says_also(k));
    if !(marked || named_replaced) || beside {
        return false;
    }
    let stemmer = Stemmer::english();
    let stem = |k: &str| stemmer.stem(k).into_owned();
    let words = |t: &[&str], k: &[String], replaced: &BTreeSet<usize>| -> Vec<(usize, String)> {
        (0..t.len())
            .filter(|&i| {
                // A negation ("don't", "isn't") says how, not what.
                is_content(t[i])
                    && !k[i].ends_with("n't")
                    && !says_a_change(t[i])
                    && !marks_a_change(k, i)
                    && !replaced.contains(&i)
            })
            .map(|i| (i, stem(&k[i])))
            .collect()
    };
    let (old_words, new_words) = (words(&a, &ka, &replaced_a), words(&b, &kb, &replaced_b));
    let in_old: BTreeSet<&str> = old_words.iter().map(|(_, w)| w.as_str()).collect();
    let in_new: BTreeSet<&str> = new_words.iter().map(|(_, w)| w.as_str()).collect();
    let old_only: Vec<usize> = old_words
        .iter()
        .filter(|(_, w)| !in_new.contains(w.as_str()))
        .map(|&(i, _)| i)
        .collect();
    let new_only: Vec<usize> = new_words
        .iter()
        .filter(|(_, w)| !in_old.contains(w.as_str()))
        .map(|&(i, _)| i)
        .collect();
    // `new` says all `old` said but its value: at most two words of it are not in `new` at
    // all ("live in `docs/`" for "moved to `site/`"; "uses … for chat" for "moved from Slack").
    let mentioned: BTreeSet<String> = (0..b.len())
        .filter(|&i| is_content(b[i]))
        .map(|i| stem(&kb[i]))
        .collect();
    let left_out = old_words
        .iter()
        .filter(|(_, w)| !mentioned.contains(w))
        .count();
    let gone = (!old_only.is_empty() || named_replaced) && left_out <= 2;
    // A word in common, or the old value named as replaced ("We use Jest" → "We switched
    // from Jest to Vitest").
    let shared = new_words.len() > new_only.len() || named_replaced;
    // Values and names for it alone, or one word for another ("staging" for "production"),
    // not the same word with a typo fixed.
    // Words said in place of another count as values when `new` keeps all of `old` but one
    // word ("The build uses vite instead of webpack"; not "The API returns JSON" → "The CLI
    // prints tables instead of JSON", another subject).
    // A word that leads to a tool ("Use `pnpm test` rather than `npm test` to run tests" for
    // "Run tests with `npm test`") says nothing of its own.
    let new_only: Vec<usize> = new_only
        .into_iter()
        .filter(|&i| !listed(TOOL_PLACES, b[i]))
        .collect();
    let only_values = !new_only.is_empty()
        && new_only
            .iter()
            .all(|&i| named(&b, i) || (replacing.contains(&i) && left_out <= 1));
    let one_for_one = match (&old_only[..], &new_only[..]) {
        (&[o], &[n]) => !is_typo_word(core(a[o]), core(b[n]), false, &stemmer),
        _ => false,
    };
    // The first word of each replaced, and another of `old`'s gone with it: a fact of
    // another subject ("Unit tests use Jest" → "E2E tests now use Playwright"), not one
    // word of a fact ("Alice owns the billing service" → "Bob now owns …").
    let subject_too =
        old_only.len() >= 2 && old_only.first() == Some(&0) && new_only.first() == Some(&0);
    gone && shared && (only_values || one_for_one) && !subject_too
}

/// True when `old` and `new` are one entry of a list, a key and what it says of it, with
/// the key the same and what it says changed: "`evaluation/`: Benchmarking framework" and
/// "`evaluation/`: Submodule → the benchmarks repository"; "crewai flow kickoff  # Legacy
/// flow execution" and "crewai flow kickoff  # Deprecated alias for crewai run". A list
/// names each key once, so its entry changed is the newer state of it. The key is what comes
/// before the first `: `, ` # ` or ` — ` (after the same leading `[context]`, if any), of at
/// most six words, and names a value ([`values`]: a path, a command, a code span), so that
/// "Note: …" is no key, nor is "Run `cargo test` before you push to a shared branch: …";
/// or it is a label in bold, of at most six words, before a colon or a dash ("**Failure
/// modes:** …", "**Changelog** — …"), not a sentence nor a note's or a warning's label.
///
/// ```
/// use oro_mem_text::same_entry;
///
/// assert!(same_entry(
///     "`vouch-check-pr.yml`: Comments on PRs from authors absent from `VOUCHED.td`.",
///     "`vouch-check-pr.yml`: Closes PRs from authors denounced in `VOUCHED.td`.",
/// ));
/// assert!(same_entry(
///     "**Changelog** — Add a new entry in `docs/versionhistory.rst`.",
///     "**Changelog** — Add a news fragment in `changelog.d/`.",
/// ));
/// assert!(!same_entry("Note: run the tests first", "Note: the docs build on push"));
/// assert!(!same_entry("**Note:** run the tests first", "**Note:** the docs build on push"));
/// assert!(!same_entry("`src/`: the code", "`docs/`: the manual"));
/// ```
pub fn same_entry(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    const ENTRY_KEY_WORDS: usize = 6;
    fn entry(text: &str) -> Option<(&str, &str, &str, bool)> {
        let text = text.trim();
        let (context, rest) = match text.strip_prefix('[').and_then(|t| t.split_once(']')) {
            Some((context, rest)) => (context, rest.trim_start()),
            None => ("", text),
        };
        if let Some((label, said)) = bold_label(rest) {
            return Some((context, label, said, true));
        }
        let at = [": ", " # ", " — "]
            .iter()
            .filter_map(|sep| rest.find(sep).map(|i| (i, sep.len())))
            .min()?;
        let (key, said) = (rest[..at.0].trim(), rest[at.0 + at.1..].trim());
        // A key names a thing; a sentence before a colon is no key.
        let words = key.split_whitespace().count();
        ((1..=ENTRY_KEY_WORDS).contains(&words) && !said.is_empty())
            .then_some((context, key, said, false))
    }
    // A list's entry led by a label in bold ("**Failure modes:** If the child …",
    // "**Changelog** — Add …"): the label, and what follows it. Not a sentence in bold, nor
    // a note's or a warning's label, which lead entries about anything.
    fn bold_label(text: &str) -> Option<(&str, &str)> {
        let inner = text.strip_prefix("**")?;
        let close = inner.find("**")?;
        let (label, after) = (inner[..close].trim(), &inner[close + 2..]);
        let said = after.trim_start_matches([':', ' ', '—', '–']);
        let separated = label.ends_with(':')
            || after.starts_with(':')
            || after.starts_with(" — ")
            || after.starts_with(" – ");
        let label = label.trim_end_matches(':').trim();
        let words = label.split_whitespace().count();
        let admonition = ADMONITIONS.contains(&label.to_lowercase().as_str());
        (separated
            && (1..=ENTRY_KEY_WORDS).contains(&words)
            && !label.ends_with(['.', '!', '?'])
            && !admonition
            && !said.is_empty())
        .then_some((label, said))
    }
    let (Some((context, key, said, bold)), Some((new_context, new_key, new_said, new_bold))) =
        (entry(old), entry(new))
    else {
        return false;
    };
    let keyed = if context.is_empty() {
        key.to_string()
    } else {
        format!("[{context}] {key}")
    };
    context == new_context
        && key == new_key
        && !said.eq_ignore_ascii_case(new_said)
        && ((bold && new_bold) || !values(&keyed).is_empty())
}

/// The labels that lead a note, a warning or an example, in bold or not: no list's key.
/// Sorted.
const ADMONITIONS: &[&str] = &[
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

/// True when one of `a` and `b` says all the other says, word for word and in order, and
/// more: a clause added or dropped ("Make sure to read the instructions. If something isn't
/// clear, ask" and "Make sure to read the instructions. Not all issues have them, so if
/// something isn't clear, ask"). The shorter has eight words or more: a short one is held by
/// too many statements about other things.
///
/// ```
/// use oro_mem_text::holds_the_other;
///
/// assert!(holds_the_other(
///     "You can install CMake from the installers or with `pipx install cmake`.",
///     "You can install CMake from the installers or with `pipx install cmake` (make sure \
///      that the pipx install path is in `PATH`).",
/// ));
/// assert!(!holds_the_other("Run the tests", "Run the tests on every push"));
/// ```
pub fn holds_the_other(a: &str, b: &str) -> bool {
    let (a, b) = (&*as_stated(a), &*as_stated(b));
    let (a, b) = (alphanumeric_keys(a), alphanumeric_keys(b));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 8 && holds_in_order(&short, &long)
}

/// True when every word of `short` is in `long`, in order.
fn holds_in_order(short: &[String], long: &[String]) -> bool {
    let mut rest = long.iter();
    short.iter().all(|w| rest.any(|l| l == w))
}

/// Verbs that say the word before them is a subject ([`subject_replaced`]). Sorted.
const AUXILIARIES: &[&str] = &[
    "are", "can", "could", "did", "does", "had", "has", "have", "is", "may", "might", "must",
    "shall", "should", "was", "were", "will", "would",
];

/// True when `b` is `a` said of another subject: its first word, its subject, replaced by
/// another and nothing else changed ("Sentry is used for error tracking" and "Rollbar is
/// used for error tracking", "Alice owns the billing service" and "Bob owns …"), or one word
/// of a subject that starts with a determiner replaced and what is said of it changed too
/// ("The API server listens on port 4000" and "The metrics server listens on port 9100"),
/// or, after a leading clause both open with word for word, a subject that shares no word
/// with the other's ("After a release, the changelog must …" and "After a release, docs
/// should …"). A capitalized word that starts a statement may be a name or a verb, so it is
/// read as a subject only when a verb follows it: an auxiliary (`is`, `has`, `can`, …) or a
/// word ending in `s` ("owns", "updates"). Such a pair is no duplicate, however similar (one word of a
/// few), and no update either: the same words say as often that two things are alike
/// ("Linux is supported", "Windows is supported"), and two subjects each have their value
/// (the API's port, the metrics server's). A typo fixed, another form of the word, a negation
/// or an opposite are not a subject replaced.
///
/// ```
/// use oro_mem_text::subject_replaced;
///
/// assert!(subject_replaced("Sentry is used for error tracking", "Rollbar is used for error tracking"));
/// assert!(subject_replaced("Dependabot updates dependencies weekly", "Renovate updates dependencies weekly"));
/// assert!(subject_replaced(
///     "The API server listens on port 4000",
///     "The metrics server listens on port 9100",
/// ));
/// // An imperative's verb: a rewording.
/// assert!(!subject_replaced("Use single quotes in Python", "Prefer single quotes in Python"));
/// assert!(!subject_replaced("Sentry is used for error tracking", "Sentry is used for tracing"));
/// // One subject, its value changed: an update.
/// assert!(!subject_replaced("The API server listens on port 4000", "The API server listens on port 9100"));
/// // One occasion, two subjects; one occasion, one imperative rewritten.
/// assert!(subject_replaced(
///     "After a class rename, documentation should reference only the new class.",
///     "After a class rename, the test suite must use the new class and test the old one's warning.",
/// ));
/// assert!(!subject_replaced(
///     "When an agent needs multiple fields, build one single-line CEL string.",
///     "When an agent needs multiple fields, write one text value with labels.",
/// ));
/// ```
pub fn subject_replaced(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    let (a, b) = (tokens(old), tokens(new));
    let (Some((first_a, rest_a)), Some((first_b, rest_b))) = (a.split_first(), b.split_first())
    else {
        return false;
    };
    let capitalized = |w: &str| {
        w.chars().next().is_some_and(char::is_uppercase) && w.chars().all(char::is_alphabetic)
    };
    // The rest the same, but for another form of a word ("Tests run" and "Linting runs") and
    // a word that says the subject is one more ("too", "also").
    let stemmer = Stemmer::english();
    let rest = |t: &[&str]| -> Vec<String> {
        keys(t)
            .iter()
            .filter(|k| !says_also(k))
            .map(|k| stemmer.stem(k).into_owned())
            .collect()
    };
    let first_word = capitalized(first_a)
        && capitalized(first_b)
        && rest(rest_a) == rest(rest_b)
        && [rest_a, rest_b]
            .iter()
            .any(|r| r.first().is_some_and(|w| is_verb(w)))
        && another_word(first_a, first_b);
    first_word
        || another_subject(&a, &b)
        || narrower_subject(&a, &b)
        || another_subject_after_a_lead_in(old, new)
}

/// A word that says the words before it are a subject: an auxiliary (`is`, `has`, `can`,
/// …) or a lower-case word ending in `s` ("owns", "updates", "listens").
fn is_verb(word: &str) -> bool {
    listed(AUXILIARIES, word)
        || (word.len() > 3
            && word.ends_with('s')
            && !word.ends_with("ss")
            && word.chars().all(|c| c.is_ascii_lowercase()))
}

/// `b` is another word than `a`, not the same one with a typo fixed or in another form, not
/// its opposite, and neither a negation: what names another subject.
fn another_word(a: &str, b: &str) -> bool {
    !core(a).eq_ignore_ascii_case(core(b))
        && ![a, b].iter().any(|w| reverses(w))
        && !opposites(a, b)
        && !is_typo_word(core(a), core(b), false, &Stemmer::english())
}

/// Words that start a subject. Sorted.
const DETERMINERS: &[&str] = &[
    "a", "all", "an", "each", "every", "its", "our", "the", "this", "your",
];

/// True when `a` and `b` state something of two subjects: each starts with a subject (a
/// determiner, then words up to a verb, [`is_verb`]), the two subjects differ by one word
/// replaced by another and the same verb follows, and what comes after it differs too. "The
/// API server listens on port 4000" and "The metrics server listens on port 9100", "The dev
/// branch deploys to the staging cluster" and "The main branch deploys to the production
/// cluster" are two facts, both true, not one fact with its value changed.
fn another_subject(a: &[&str], b: &[&str]) -> bool {
    let starts = |t: &[&str]| t.first().is_some_and(|w| listed(DETERMINERS, w));
    if !starts(a) || !starts(b) {
        return false;
    }
    let (ka, kb) = (keys(a), keys(b));
    // The first verb the two share at one place: a plural in the subject ends in `s` too.
    let Some(verb) = (1..ka.len().min(kb.len())).find(|&i| is_verb(a[i]) && ka[i] == kb[i]) else {
        return false;
    };
    let replaced: Vec<usize> = (0..verb).filter(|&i| ka[i] != kb[i]).collect();
    replaced.len() == 1
        && another_word(a[replaced[0]], b[replaced[0]])
        && ka[verb + 1..] != kb[verb + 1..]
}

/// True when one of `a` and `b` states something of a narrower subject: a subject (a
/// determiner, then words up to a verb, [`is_verb`]) with a word put before its last one,
/// the same verb after it, and what comes after the verb changed ("The API is versioned
/// under `/v1`" and "The admin API is versioned under `/admin/v1`"). [`another_subject`]
/// for a word added rather than replaced.
fn narrower_subject(a: &[&str], b: &[&str]) -> bool {
    let subject = |t: &[&str]| -> Option<usize> {
        if !t.first().is_some_and(|w| listed(DETERMINERS, w)) {
            return None;
        }
        (1..t.len().min(SUBJECT_WORDS + 2)).find(|&i| is_verb(t[i]))
    };
    let (Some(va), Some(vb)) = (subject(a), subject(b)) else {
        return false;
    };
    let (ka, kb) = (keys(a), keys(b));
    let (short, long, vs, vl) = if va < vb {
        (&ka, &kb, va, vb)
    } else {
        (&kb, &ka, vb, va)
    };
    if vl != vs + 1 || short[vs] != long[vl] || short[vs + 1..] == long[vl + 1..] {
        return false;
    }
    // The word put in: after the determiner, before the subject's last word.
    (1..vs).any(|i| {
        short[..i] == long[..i]
            && short[i..vs] == long[i + 1..vl]
            && is_content(&long[i])
            && !reverses(&long[i])
    })
}

/// True when `b` is `a` with nothing changed but typos fixed, words written short or long (a
/// short list of common ones: "Install deps with pnpm" → "Install dependencies with pnpm",
/// "Review the PR" → "Review the pull request") and a rule worded another way ("Do not" for
/// "Never", "Avoid" for "Don't use", "Favor" for "Prefer", "Always" or "Make sure to" added
/// or dropped), and something so changed; or with only its formatting or a letter's case
/// changed (white space, emphasis around it, a note's label, its full stop: "Note: the app
/// listens on 0.0.0.0."). A duplicate however low the two texts' similarity, which such
/// changes lower most in a short statement.
///
/// ```
/// use oro_mem_text::rewords;
///
/// assert!(rewords("Install deps with pnpm", "Install dependencies with pnpm"));
/// assert!(rewords("Synchronize with the offical repository", "Synchronize with the official repository"));
/// assert!(!rewords("Install deps with pnpm", "Install deps with pnpm"));
/// assert!(!rewords("Install deps with pnpm", "Install deps with yarn"));
/// assert!(rewords("The app listens on 0.0.0.0", "**Note:** the app listens on  0.0.0.0."));
/// // A rule worded another way.
/// assert!(rewords("Do not commit secrets", "Never commit secrets"));
/// assert!(rewords("Don't use global state", "Avoid global state"));
/// assert!(!rewords("Never commit lockfiles", "Always commit lockfiles"));
/// ```
pub fn rewords(a: &str, b: &str) -> bool {
    let Some((stated_a, stated_b)) = two_statements(a, b) else {
        return a != b;
    };
    let (a, b) = (&*stated_a, &*stated_b);
    let (a, b) = (tokens(a), tokens(b));
    let (ka, kb) = (keys(&a), keys(&b));
    let stemmer = Stemmer::english();
    let mut changed = false;
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ka, &kb) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        let (gone, came) = (words(&a, old_range.clone()), words(&b, new_range.clone()));
        if gone.is_empty() && came.is_empty() {
            // Punctuation or a function word: "the" for "a" rewords too, but it is no
            // sign of a rewording of its own.
            continue;
        }
        // A word with a hyphen is a value (`app-server`), but in prose it is a word written
        // one way: "hard-code" is "hardcode" ([`phrasing`] drops the hyphen).
        let plain = |w: &[Word]| {
            w.iter().all(|w| {
                w.kind == Kind::Plain || (w.kind == Kind::Value && hyphenated_word(w.text))
            })
        };
        let phrased = plain(&gone)
            && plain(&came)
            && phrasing(&ka[old_range], &stemmer) == phrasing(&kb[new_range], &stemmer);
        if !phrased && !same_words(&gone, &came, &stemmer) {
            return false;
        }
        changed = true;
    }
    changed
}

/// Ways of wording a rule that say the same, each with the word it is read as, or none when
/// it only stresses the rule (an imperative says as much): "Do not commit secrets" and
/// "Never commit secrets", "Don't use global state" and "Avoid global state", "Make sure to
/// run `cargo fmt`", "Always run `cargo fmt`" and "Run `cargo fmt`", "Prefer" and "Favor",
/// "instead of" and "rather than". Sorted. A negation not listed here is read as `never`
/// too.
const PHRASINGS: &[(&[&str], Option<&str>)] = &[
    (&["always"], None),
    (&["anymore"], None),
    (&["avoid"], Some("never")),
    (&["be", "sure", "to"], None),
    (&["considered"], None),
    (&["ensure"], None),
    (&["ensure", "that"], None),
    (&["favor"], Some("prefer")),
    (&["favour"], Some("prefer")),
    (&["instead", "of"], Some("instead")),
    (&["make", "sure"], None),
    (&["make", "sure", "that"], None),
    (&["make", "sure", "to"], None),
    (&["no", "longer"], Some("never")),
    (&["now"], None),
    (&["officially"], None),
    (&["rather", "than"], Some("instead")),
    (&["remember", "to"], None),
    (&["still"], None),
];

/// How a changed part of a rule (its words, [`keys`]) reads once worded one way
/// ([`PHRASINGS`]): its content words, negations as `never` (one for a run of them), `use`
/// after one dropped ("never use X" is "avoid X"), a word's hyphens dropped (`hard-code`,
/// `hardcode`), each word stemmed.
fn phrasing(keys: &[String], stemmer: &Stemmer) -> Vec<String> {
    let keys: Vec<String> = keys.iter().map(|k| k.replace('-', "")).collect();
    let mut out: Vec<String> = Vec::new();
    let mut rest = &keys[..];
    while let Some(first) = rest.first() {
        let phrase = PHRASINGS
            .iter()
            .filter(|(words, _)| {
                rest.len() >= words.len() && rest.iter().zip(*words).all(|(k, w)| k == w)
            })
            .max_by_key(|(words, _)| words.len());
        let (word, len) = match phrase {
            Some((words, word)) => (word.map(str::to_string), words.len()),
            None if crate::words::is_negation(first) => (Some("never".to_string()), 1),
            None if is_content(first) => (Some(first.clone()), 1),
            None => (None, 1),
        };
        rest = &rest[len..];
        let Some(word) = word else { continue };
        let after_never = out.last().is_some_and(|w| w == "never");
        if after_never && (word == "never" || word == "use" || word == "using") {
            continue;
        }
        out.push(stemmer.stem(&word).into_owned());
    }
    out
}

/// Common words written short, each with what it stands for, sorted: in prose (not in a
/// value or a name) one says what the other does.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("app", "application"),
    ("apps", "applications"),
    ("arg", "argument"),
    ("args", "arguments"),
    ("auth", "authentication"),
    ("config", "configuration"),
    ("configs", "configurations"),
    ("db", "database"),
    ("dbs", "databases"),
    ("dep", "dependency"),
    ("deps", "dependencies"),
    ("dir", "directory"),
    ("dirs", "directories"),
    ("doc", "documentation"),
    ("docs", "documentation"),
    ("env", "environment"),
    ("envs", "environments"),
    ("func", "function"),
    ("impl", "implementation"),
    ("info", "information"),
    ("lib", "library"),
    ("libs", "libraries"),
    ("msg", "message"),
    ("msgs", "messages"),
    ("param", "parameter"),
    ("params", "parameters"),
    ("pkg", "package"),
    ("pkgs", "packages"),
    ("pr", "pull request"),
    ("prs", "pull requests"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("spec", "specification"),
    ("specs", "specifications"),
    ("var", "variable"),
    ("vars", "variables"),
];

/// The words of a changed part, `gone` and then `came`, say the same: each a typo fixed
/// ([`is_typo`], as in a value when one is), or plain words written short for long or the
/// other way round ([`ABBREVIATIONS`]).
fn same_words(gone: &[Word], came: &[Word], stemmer: &Stemmer) -> bool {
    if gone.is_empty() && came.is_empty() {
        return true;
    }
    let typos = gone.len() == came.len()
        && gone.iter().zip(came).all(|(x, y)| {
            let value = x.kind == Kind::Value || y.kind == Kind::Value;
            is_typo(x.text, y.text, value, stemmer)
        });
    let plain = |words: &[Word]| {
        let all = words.iter().all(|w| w.kind == Kind::Plain);
        all.then(|| {
            words
                .iter()
                .map(|w| core(w.text).to_lowercase())
                .collect::<Vec<_>>()
                .join(" ")
        })
    };
    let written_short = match (plain(gone), plain(came)) {
        (Some(x), Some(y)) if !x.is_empty() && !y.is_empty() => {
            let pair = |s: &str, l: &str| ABBREVIATIONS.binary_search(&(s, l)).is_ok();
            pair(&x, &y) || pair(&y, &x)
        }
        _ => false,
    };
    typos || written_short
}

/// The words of `text` other than its values and names ([`changed_value`]'s reading) but for
/// one it names as replaced ("switched from **Jest** to Vitest"), and
/// other than its negations, `always` and the words that have an opposite (what a rule
/// reversed changes) unless nothing else is left: what an older state of the same fact shares
/// with it, whatever changed. As a query it finds that state where the whole text cannot: a
/// changed name or path is a rare word that outweighs every word the two share, and in a
/// store of a few memories, where the words they share are in half of them, so is the word
/// that reverses a rule.
///
/// ```
/// use oro_mem_text::plain_words;
///
/// assert_eq!(plain_words("Unit tests run on Vitest"), "Unit tests run on");
/// assert_eq!(plain_words("Config lives in `src/settings.rs`"), "Config lives in");
/// assert_eq!(plain_words("Always lint, never skip the hooks"), "lint skip the hooks");
/// assert_eq!(plain_words("Always squash merge"), "merge");
/// assert_eq!(plain_words("Always squash"), "squash");
/// assert_eq!(plain_words("Lint the code with ruff"), "Lint the code with");
/// assert_eq!(plain_words("Disable strict mode"), "strict mode");
/// assert_eq!(plain_words("Use Node 20"), "Use");
/// assert_eq!(plain_words("We switched from Jest to Vitest"), "We from Jest to");
/// ```
pub fn plain_words(text: &str) -> String {
    let tokens = tokens(text);
    let keys = keys(&tokens);
    let replaced = replaced_words(&keys, false);
    let plain: Vec<&str> = (0..tokens.len())
        .filter(|&i| {
            let t = tokens[i];
            t.chars().any(char::is_alphanumeric)
                && (kind(&tokens, i) == Kind::Plain || replaced.contains(&i))
        })
        .map(|i| tokens[i])
        .collect();
    // Without the words that reverse a rule, the opposites ("Always squash merge": "merge")
    // and the words that say a value changed ("The docs moved to `site/`": "The docs to"),
    // which the older state does not hold; unless they are all it says of its subject, with
    // the opposites ("Always squash": "squash"); else all of them (a statement of negations
    // alone).
    let without = |leave_out: &dyn Fn(&str) -> bool| -> Option<String> {
        let kept: Vec<&str> = plain
            .iter()
            .copied()
            .filter(|t| !leave_out(core(t)))
            .collect();
        kept.iter().any(|t| is_content(t)).then(|| kept.join(" "))
    };
    without(&|t| reverses(t) || is_opposite(t) || says_a_change(t))
        .or_else(|| without(&|t| reverses(t) || says_a_change(t)))
        .or_else(|| without(&reverses))
        .unwrap_or_else(|| plain.join(" "))
}

/// What a changed word is to [`changed_value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A value as [`values`] reads one (or a code span), a number word, how often
    /// ([`FREQUENCIES`]) or how much a log says ([`LOG_LEVELS`]).
    Value,
    /// A capitalized word inside a sentence (a tool's, a product's, a person's name), or a
    /// place's ([`names_a_place`]).
    Name,
    /// A word in a tool's place ([`in_tool_place`]), in any case.
    Tool,
    /// A unit after a number (`30 seconds`, `512 MB`): part of the value it follows.
    Unit,
    /// Any other word: rewording changes these.
    Plain,
}

#[derive(Clone, Copy, Debug)]
struct Word<'a> {
    text: &'a str,
    kind: Kind,
}

/// Words that reverse what a rule prescribes when one takes the other's place, as a negation
/// does: `Enable X` and `Disable X`, `X is required` and `X is optional`, `before` and `after`
/// the tests, and the choices of a convention (`absolute` and `relative` imports, `single` and
/// `double` quotes, `ascending` and `descending` order, a `squash` or a `rebase` merge, `tabs`
/// or `spaces`, `concise` or `verbose`). Not words that pick another subject (`dev` and
/// `prod`, `client` and `server`, `public` and `private`): two rules about two things are both
/// true. Each pair in order, the pairs sorted, for [`opposites`]' binary search.
const OPPOSITES: &[(&str, &str)] = &[
    ("absolute", "relative"),
    ("accept", "reject"),
    ("accepted", "rejected"),
    ("after", "before"),
    ("allow", "disallow"),
    ("allow", "forbid"),
    ("allowed", "disallowed"),
    ("allowed", "forbidden"),
    ("allows", "disallows"),
    ("allows", "forbids"),
    ("ascending", "descending"),
    ("async", "sync"),
    ("asynchronous", "synchronous"),
    ("asynchronously", "synchronously"),
    ("automatic", "manual"),
    ("automatically", "manually"),
    ("avoid", "prefer"),
    ("avoid", "use"),
    ("capital", "lowercase"),
    ("capitalized", "lowercase"),
    ("capitalized", "lowercased"),
    ("concise", "verbose"),
    ("dark", "light"),
    ("declarative", "imperative"),
    ("disable", "enable"),
    ("disabled", "enabled"),
    ("disables", "enables"),
    ("discouraged", "encouraged"),
    ("double", "single"),
    ("dynamic", "static"),
    ("dynamically", "statically"),
    ("eager", "lazy"),
    ("eagerly", "lazily"),
    ("exclude", "include"),
    ("excluded", "included"),
    ("explicit", "implicit"),
    ("explicitly", "implicitly"),
    ("false", "true"),
    ("immutable", "mutable"),
    ("lowercase", "uppercase"),
    ("major", "minor"),
    ("mandatory", "optional"),
    ("optimistic", "pessimistic"),
    ("optional", "required"),
    ("parallel", "sequential"),
    ("parallel", "sequentially"),
    ("parallel", "serial"),
    ("parallel", "serially"),
    ("rebase", "squash"),
    ("space", "tab"),
    ("spaces", "tabs"),
    ("stateful", "stateless"),
];

/// Words that order two things, so that swapping the words on either side reverses what is
/// said: "A instead of B", "A before B", "A over B", "from A into B". Sorted.
const ORDER_WORDS: &[&str] = &[
    "above", "after", "before", "below", "from", "instead", "into", "over", "than", "versus", "vs",
];

/// Whether `b` is `a` with the words next to an [`ORDER_WORDS`] word swapped: the content
/// words nearest before and after it (past function words: "instead of") trade places, for
/// an order word each statement has once.
fn swapped_around(a: &[&str], b: &[&str]) -> bool {
    let key = |t: &str| core(t).to_lowercase();
    let around = |tokens: &[&str], i: usize| {
        let before = tokens[..i]
            .iter()
            .rev()
            .find(|t| is_content(t))
            .map(|t| key(t));
        let after = tokens[i + 1..]
            .iter()
            .find(|t| is_content(t) && !is_order_word(t));
        (before, after.map(|t| key(t)))
    };
    let once = |tokens: &[&str], word: &str| {
        let mut at = tokens.iter().enumerate().filter(|(_, t)| key(t) == word);
        match (at.next(), at.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    };
    ORDER_WORDS.iter().any(|word| {
        let (Some(i), Some(j)) = (once(a, word), once(b, word)) else {
            return false;
        };
        match (around(a, i), around(b, j)) {
            ((Some(x), Some(y)), (Some(x2), Some(y2))) => x != y && x == y2 && y == x2,
            _ => false,
        }
    })
}

/// One of [`ORDER_WORDS`], in any case.
fn is_order_word(token: &str) -> bool {
    listed(ORDER_WORDS, token)
}

/// `a` and `b` set one name to two values: `KEY=1` and `KEY=2`, `--jobs=4` and `--jobs=8`.
fn same_setting(a: &str, b: &str) -> bool {
    fn name(t: &str) -> Option<&str> {
        let (name, _) = core(t).split_once('=')?;
        name.chars().any(char::is_alphanumeric).then_some(name)
    }
    name(a).is_some() && name(a) == name(b) && core(a) != core(b)
}

/// `word` reverses a rule when it is added or dropped: a negation, or `always`.
fn reverses(word: &str) -> bool {
    crate::words::is_negation(word)
        || ["always", "anymore", "longer", "still"]
            .iter()
            .any(|w| word.eq_ignore_ascii_case(w))
}

/// `word` is one of a pair of [`OPPOSITES`], in any case.
fn is_opposite(word: &str) -> bool {
    let word = word.to_lowercase();
    OPPOSITES.iter().any(|&(a, b)| a == word || b == word)
}

/// `a` and `b` are opposites ([`OPPOSITES`]), in any case, either way round.
fn opposites(a: &str, b: &str) -> bool {
    let (a, b) = (core(a).to_lowercase(), core(b).to_lowercase());
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    OPPOSITES.binary_search(&(a.as_str(), b.as_str())).is_ok()
}

/// `a` and `b` are a word and its complement: `non-X` and `X`, either way round.
fn complements(a: &str, b: &str) -> bool {
    let (a, b) = (core(a).to_lowercase(), core(b).to_lowercase());
    let negated = |x: &str, y: &str| x.strip_prefix("non-").is_some_and(|rest| rest == y);
    negated(&a, &b) || negated(&b, &a)
}

/// How many of `words` are values or names.
fn named(words: &[Word]) -> usize {
    words.iter().filter(|w| w.kind != Kind::Plain).count()
}

/// The content words of `tokens[range]` (not punctuation, not function words), each with
/// its [`Kind`].
fn words<'a>(tokens: &[&'a str], range: std::ops::Range<usize>) -> Vec<Word<'a>> {
    range
        .filter(|&i| is_content(tokens[i]))
        .map(|i| Word {
            text: tokens[i],
            kind: kind(tokens, i),
        })
        .collect()
}

/// What `tokens[i]` is to [`changed_value`].
fn kind(tokens: &[&str], i: usize) -> Kind {
    let text = tokens[i];
    let core = core(text).to_lowercase();
    if is_value_token(text)
        || NUMBER_WORDS.contains(&core.as_str())
        || listed(FREQUENCIES, &core)
        || listed(LOG_LEVELS, &core)
        || listed(STAGES, &core)
        || (listed(ENVIRONMENTS, &core) && !in_subject(tokens, i))
        || listed(PROGRAMS, &core)
    {
        Kind::Value
    } else if i > 0 && is_number(tokens[i - 1]) && UNITS.contains(&core.as_str()) {
        Kind::Unit
    } else if in_units(tokens, i) || quoted(tokens, i) {
        Kind::Value
    } else if in_tool_place(tokens, i) {
        Kind::Tool
    } else if is_name(tokens, i) || names_a_place(tokens, i) || ends_as_complement(tokens, i) {
        Kind::Name
    } else {
        Kind::Plain
    }
}

/// Whether `tokens[i]` is in the subject a statement opens with: a determiner first, and no
/// verb ([`is_verb`]) before `tokens[i]` ("The staging database is …").
fn in_subject(tokens: &[&str], i: usize) -> bool {
    tokens.first().is_some_and(|w| listed(DETERMINERS, w))
        && !tokens[..i].iter().any(|t| is_verb(t))
}

/// Whether `tokens[i]` is a word of a quoted string ("Use the \"Bug report\" template"),
/// which is a value as written, not words to reword: an odd number of straight double quotes
/// before it and one after it, or an opening curly quote before it with no closing one
/// between.
fn quoted(tokens: &[&str], i: usize) -> bool {
    let straights = |part: &[&str]| part.iter().filter(|t| **t == "\"").count();
    let opened = straights(&tokens[..i]) % 2 == 1 && straights(&tokens[i + 1..]) > 0;
    let curly = tokens[..i]
        .iter()
        .rev()
        .find(|t| matches!(**t, "\u{201c}" | "\u{201d}"))
        .is_some_and(|t| *t == "\u{201c}")
        && tokens[i + 1..].contains(&"\u{201d}");
    opened || curly
}

/// Words that say what kind of thing a value is: "the `ANTHROPIC_LIVE=1` environment
/// variable", "the `--http-record` flag", "testify's `require` package".
const KIND_WORDS: &[&str] = &[
    "argument",
    "arguments",
    "branch",
    "command",
    "commands",
    "crate",
    "crates",
    "directory",
    "environment",
    "file",
    "files",
    "flag",
    "flags",
    "folder",
    "key",
    "library",
    "module",
    "option",
    "options",
    "package",
    "packages",
    "parameter",
    "path",
    "plugin",
    "script",
    "setting",
    "subdirectory",
    "tool",
    "variable",
    "variables",
    "version",
];

/// Units, after a number: the value is the number and its unit ("30 seconds" → "2 minutes" is
/// one value changed). Sorted.
const UNITS: &[&str] = &[
    "%",
    "b",
    "bytes",
    "characters",
    "chars",
    "d",
    "day",
    "days",
    "gb",
    "gib",
    "h",
    "hour",
    "hours",
    "hr",
    "hrs",
    "kb",
    "kib",
    "lines",
    "m",
    "mb",
    "mib",
    "microsecond",
    "microseconds",
    "millisecond",
    "milliseconds",
    "min",
    "mins",
    "minute",
    "minutes",
    "month",
    "months",
    "ms",
    "nanosecond",
    "nanoseconds",
    "ns",
    "percent",
    "px",
    "s",
    "sec",
    "second",
    "seconds",
    "secs",
    "tb",
    "week",
    "weeks",
    "year",
    "years",
];

/// A number, in digits or in words: what a unit follows.
fn is_number(token: &str) -> bool {
    let word = core(token);
    word.chars().next().is_some_and(|c| c.is_ascii_digit())
        || NUMBER_WORDS.contains(&word.to_lowercase().as_str())
}

/// Number words: "three phases" to "four phases" changes a value.
const NUMBER_WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];

/// Where a feature or an interface is in its life: "`foo()` is deprecated" → "`foo()` was
/// removed" changes a value, as a number does. Sorted.
const STAGES: &[&str] = &[
    "deprecated",
    "experimental",
    "obsolete",
    "removed",
    "stable",
    "supported",
    "unstable",
    "unsupported",
];

/// The [`STAGES`] of a feature on its way out.
const RETIRING: &[&str] = &["deprecated", "obsolete", "removed", "unsupported"];

/// A log's level: "The default log level is info" → "debug" changes a value, as a number
/// does. Not `error` nor `warning`, which are words of rules too ("fix every warning").
/// Sorted.
const LOG_LEVELS: &[&str] = &["debug", "info", "trace", "verbose", "warn"];

/// Where software is deployed or run: "Deploy to staging first" → "to production first"
/// changes a value, as a host's name does; in the subject it names what the statement is
/// about ("The staging database is Postgres 15" and "The production database …": two
/// databases, [`in_subject`]). Not `dev`, `local` nor `test`, which are words of rules too
/// ("the dev branch", "a local variable", "the test suite"). Sorted.
const ENVIRONMENTS: &[&str] = &[
    "preprod",
    "preproduction",
    "prod",
    "production",
    "qa",
    "sandbox",
    "staging",
    "uat",
];

/// Programs a project's rules name in lower case, as a word of a sentence ("Run npm test",
/// "run all of the mocha tests"): the package managers, runners, test frameworks, linters
/// and bundlers of the ecosystems agents work in, each a value as a version is, so another
/// in its place is a changed value ("Run pnpm test"). Only names that are no English word a
/// rule would use otherwise: not `black`, `hatch`, `just`, `make`, `go` or `prettier`.
/// Sorted.
const PROGRAMS: &[&str] = &[
    "ava",
    "bower",
    "browserify",
    "bun",
    "bunx",
    "cargo",
    "conda",
    "deno",
    "esbuild",
    "eslint",
    "flake8",
    "gradle",
    "grunt",
    "gulp",
    "isort",
    "jasmine",
    "jest",
    "jscs",
    "jshint",
    "karma",
    "lerna",
    "mocha",
    "mvn",
    "mypy",
    "nodemon",
    "nodeunit",
    "nox",
    "npm",
    "npx",
    "nvm",
    "pdm",
    "pip",
    "pip3",
    "pipenv",
    "pipx",
    "pnpm",
    "pnpx",
    "pylint",
    "pyright",
    "pytest",
    "rollup",
    "ruff",
    "rustup",
    "rye",
    "tox",
    "tsc",
    "tslint",
    "tsup",
    "twine",
    "uv",
    "vite",
    "vitest",
    "webpack",
    "yarn",
];

/// How often something happens: "Releases are cut weekly" → "monthly" changes a value, as a
/// number does. Sorted.
const FREQUENCIES: &[&str] = &[
    "annually",
    "biweekly",
    "daily",
    "hourly",
    "monthly",
    "nightly",
    "quarterly",
    "weekly",
    "yearly",
];

/// A word that starts with a capital and goes on in lower case, not at the start of a
/// sentence, a list item or a heading.
fn is_name(tokens: &[&str], i: usize) -> bool {
    let word = core(tokens[i]);
    let mut chars = word.chars();
    // The word before may hold the punctuation that ends a sentence or a label: `.` and `:`
    // are word characters to [`tokens`] ("done." and "Jon:" are one token each).
    let starts = i == 0
        || matches!(
            tokens[i - 1],
            "." | "!" | "?" | ":" | "-" | "*" | "#" | "(" | "[" | "]" | "\"" | "|"
        )
        || tokens[i - 1].ends_with(['.', ':', '!', '?']);
    chars.next().is_some_and(char::is_uppercase)
        && chars.clone().any(char::is_lowercase)
        && word.chars().all(char::is_alphanumeric)
        && !starts
}

/// Words after which a tool, or what stands in one's place, is named: "Type-check with mypy",
/// "We use yarn to …", "Indent using tabs". Sorted.
const TOOL_PLACES: &[&str] = &["use", "uses", "using", "via", "with"];

/// Words that end the name of a tool after a [`TOOL_PLACES`] word, beside function words
/// and punctuation: "with mypy before pushing". Sorted.
const AFTER_TOOL: &[&str] = &[
    "across",
    "after",
    "before",
    "during",
    "everywhere",
    "except",
    "instead",
    "locally",
    "rather",
    "since",
    "unless",
    "until",
    "whenever",
    "where",
    "while",
    "within",
    "without",
];

/// Whether `tokens[i]` is the word right after a [`TOOL_PLACES`] word, and what it names
/// ends with it: the statement goes on with a function word, a word of [`AFTER_TOOL`] or
/// punctuation, or ends ("Type-check with mypy before pushing", "We use yarn to manage
/// dependencies", "Use tabs for indentation"). So a tool written in lower case is a name,
/// and another in its place a changed value. "Use descriptive names" names no tool (a content
/// word goes on), nor does "with the linter" (a function word comes first).
fn in_tool_place(tokens: &[&str], i: usize) -> bool {
    let word = |t: &str| {
        core(t).chars().all(char::is_alphanumeric) && is_content(t) && !listed(AFTER_TOOL, t)
    };
    // Punctuation at the end of a word ("black.") ends the name with it.
    let ends = tokens[i].ends_with(|c: char| !c.is_alphanumeric())
        || tokens.get(i + 1).is_none_or(|t| !word(t));
    before(tokens, i).is_some_and(|t| listed(TOOL_PLACES, t)) && word(tokens[i]) && ends
}

/// The token before `tokens[i]`, past emphasis (`*`, a token of its own): "the **dev**
/// branch" names a place as "the dev branch" does.
fn before<'a>(tokens: &[&'a str], i: usize) -> Option<&'a str> {
    before_at(tokens, i).map(|j| tokens[j])
}

/// The index of the token [`before`] `tokens[i]`.
fn before_at(tokens: &[&str], i: usize) -> Option<usize> {
    tokens[..i].iter().rposition(|t| *t != "*")
}

/// The token after `tokens[i]`, past emphasis ([`before`]).
fn after<'a>(tokens: &[&'a str], i: usize) -> Option<&'a str> {
    tokens.get(i + 1..)?.iter().find(|t| **t != "*").copied()
}

/// `token`, without what wraps it and in lower case, is one of the sorted `words`.
fn listed(words: &[&str], token: &str) -> bool {
    words
        .binary_search(&core(token).to_lowercase().as_str())
        .is_ok()
}

/// Words for a named place that the word before them names: "the **dev** branch", "the
/// **docs** folder", "the **staging** environment". Sorted.
const PLACES: &[&str] = &[
    "branch",
    "channel",
    "crate",
    "directory",
    "environment",
    "folder",
    "module",
    "package",
    "repo",
    "repository",
    "subdirectory",
    "workspace",
];

/// Whether `tokens[i]` is a word that names a place ([`PLACES`]) between a function word and
/// the place's word: "push to the **dev** branch", "in the **docs** folder". So another word
/// in its place names another branch, folder or environment.
fn names_a_place(tokens: &[&str], i: usize) -> bool {
    before(tokens, i).is_some_and(|t| !is_content(t) && t.chars().all(char::is_alphabetic))
        && is_content(tokens[i])
        && core(tokens[i]).chars().all(char::is_alphanumeric)
        && after(tokens, i).is_some_and(|t| listed(PLACES, t))
}

/// Words after which the last word of a statement is what it says its subject is or goes
/// to: "The default branch is master", "Logs go to stdout". Sorted.
const COMPLEMENT_PLACES: &[&str] = &["are", "is", "to"];

/// Whether `tokens[i]` is the statement's last word, right after a [`COMPLEMENT_PLACES`]
/// word (or after it and an article): the value of what the statement says ("The default
/// branch is master" → "main"; "Logs go to stdout" → "stderr").
fn ends_as_complement(tokens: &[&str], i: usize) -> bool {
    let article = |j: usize| matches!(tokens[j].to_lowercase().as_str(), "a" | "an" | "the");
    let place = before_at(tokens, i).and_then(|j| {
        if article(j) {
            before_at(tokens, j)
        } else {
            Some(j)
        }
    });
    is_content(tokens[i])
        && core(tokens[i]).chars().all(char::is_alphanumeric)
        && place.is_some_and(|j| listed(COMPLEMENT_PLACES, tokens[j]))
        // Last, as it reads the rest of the statement.
        && tokens[i + 1..]
            .iter()
            .all(|t| !t.chars().any(char::is_alphanumeric))
}

/// Whether `tokens[i]` is a unit of two letters or more named as what something is measured
/// or given in: "Timeouts are in milliseconds" → "in seconds" changes a value.
fn in_units(tokens: &[&str], i: usize) -> bool {
    let unit = core(tokens[i]).to_lowercase();
    unit.len() > 1
        && listed(UNITS, &unit)
        && before(tokens, i).is_some_and(|t| t.eq_ignore_ascii_case("in"))
}

/// A flag or a toolchain: `--all`, `-w`, `+nightly`.
fn is_flag(token: &str) -> bool {
    let word = core(token);
    word.len() > 1 && (word.starts_with('-') || word.starts_with('+'))
}

/// `word` without what wraps it: quotes, brackets, backticks, emphasis, and punctuation
/// after it.
fn core(word: &str) -> &str {
    let core = word
        .trim_matches(WRAPPING)
        .trim_end_matches(|c: char| WRAPPING.contains(&c) || matches!(c, '.' | ':'));
    if core.is_empty() {
        word
    } else {
        core
    }
}

/// The words of `text` for [`changed_value`]: a code span (with its backticks) whole; of
/// the rest, split at white space, a value or a URL whole (without what wraps it; a Markdown
/// link's last word with its target), and anything else cut into runs of letters, digits,
/// apostrophes and `_ . / @ : + -` and single other characters.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        if rest.starts_with('`') {
            // Unclosed, to the end.
            let span = code_span(rest);
            let len = span.map_or(rest.len(), |(fence, len)| 2 * fence + len);
            out.push(&rest[..len]);
            rest = &rest[len..];
            // A link on the span to what it names ("[`lib/a.js`](./lib/a.js)") says no more.
            if let (Some((fence, inner)), Some(target)) = (span, rest.strip_prefix("](")) {
                let end = target.find(')').unwrap_or(target.len());
                if page(&target[..end]) == page(&out[out.len() - 1][fence..fence + inner]) {
                    rest = &target[(end + 1).min(target.len())..];
                }
            }
            rest = rest.trim_start();
            continue;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '`')
            .unwrap_or(rest.len());
        let chunk = &rest[..end];
        let whole = core(chunk);
        if is_value(whole) || whole.starts_with("http://") || whole.starts_with("https://") {
            let lead = chunk.len() - chunk.trim_start_matches(WRAPPING).len();
            out.extend(
                chunk[..lead]
                    .char_indices()
                    .map(|(i, c)| &chunk[i..i + c.len_utf8()]),
            );
            out.push(whole);
            // A parenthesis the value closes ends what it holds, as after a word: "(was 2)".
            // Not a link's target's, nor one the value opens: `print(x)`.
            let closes = chunk.trim_end_matches(['.', ',', ';', ':']).ends_with(')');
            if closes && !chunk.contains("](") && !chunk.contains('(') {
                out.push(")");
            }
        } else {
            let mut part = chunk;
            while let Some(c) = part.chars().next() {
                let len = if is_word_char(c) {
                    part.find(|c: char| !is_word_char(c)).unwrap_or(part.len())
                } else {
                    c.len_utf8()
                };
                out.push(&part[..len]);
                part = &part[len..];
            }
        }
        rest = rest[end..].trim_start();
    }
    out
}

/// The code span `text` starts with (at a backtick): the width of its fence (1, or 2 for a
/// reStructuredText literal, ``x``, which is a Markdown code span `x`) and the length of what
/// it holds. `None` when it is not closed.
fn code_span(text: &str) -> Option<(usize, usize)> {
    let literal = text
        .strip_prefix("``")
        .and_then(|inner| inner.find("``").filter(|&len| len > 0));
    match literal {
        Some(len) => Some((2, len)),
        None => text.strip_prefix('`')?.find('`').map(|len| (1, len)),
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            c,
            '_' | '.' | '/' | '@' | ':' | '+' | '-' | '\'' | '\u{2019}'
        )
}

/// What the diff compares: each token lower-cased, without what wraps it (`` `uv` `` and
/// `uv` are one word), a URL as the page it names (a Markdown link's with the word before
/// it: "#1600](https://…/pull/1600"), a number word as its digits ("ten minutes" and "10
/// minutes").
fn keys(tokens: &[&str]) -> Vec<String> {
    let key = |t: &str| {
        let t = core(t);
        let t = match t.split_once("](") {
            Some((text, target)) => format!("{text}]({}", page(target)),
            None if t.contains("://") => page(t).to_string(),
            None => t.to_string(),
        }
        .to_lowercase();
        match NUMBER_WORDS.iter().position(|&n| n == t) {
            Some(n) => n.to_string(),
            None => t,
        }
    };
    tokens.iter().map(|t| key(t)).collect()
}

/// The page a Markdown link in `word` ("[text](target)", split at white space) names
/// ([`page`]), when it has one.
fn link_target(word: &str, as_page: fn(&str) -> &str) -> Option<&str> {
    let (_, after) = word.split_once("](")?;
    Some(as_page(after.split(')').next().unwrap_or(after))).filter(|t| !t.is_empty())
}

/// The page a link's target names: without a `#fragment` (a place on the page), a trailing
/// `/`, the scheme (`http://` and `https://` name one page, and a link written without one
/// too) and a leading `./`. A link to another place on the same page names the same thing.
fn page(target: &str) -> &str {
    let target = target
        .strip_prefix("https://")
        .or_else(|| target.strip_prefix("http://"))
        .unwrap_or(target);
    page_as_written(target.strip_prefix("./").unwrap_or(target))
}

/// A link's target without a `#fragment` and a trailing `/`, its scheme kept.
fn page_as_written(target: &str) -> &str {
    target
        .split('#')
        .next()
        .unwrap_or(target)
        .trim_end_matches('/')
}

/// True when two pages ([`page`]) are one: the same, or one named relative to the other's
/// place (`../../CONTRIBUTING.md` and `github.com/babel/babel/blob/main/CONTRIBUTING.md`,
/// `issues/new/choose` and `github.com/o/r/issues/new/choose`: the path left after any `../`
/// ends the other, an address on a host). Two paths in a project are two places
/// (`langsmith/client.py` and `src/langsmith/client.py`).
fn same_page(a: &str, b: &str) -> bool {
    // A path from the file's place: past `../`, or one whose first part names no host.
    let relative = |p: &str| -> Option<String> {
        let rest = p.trim_start_matches("../");
        let from_here = rest.len() < p.len()
            || rest
                .split_once('/')
                .is_some_and(|(first, _)| !first.is_empty() && !first.contains(['.', ':', '@']));
        (from_here && !rest.is_empty()).then(|| format!("/{rest}"))
    };
    // An address on a host: its first part names one (`github.com/…`).
    let hosted = |p: &str| p.split('/').next().is_some_and(|host| host.contains('.'));
    a == b
        || (hosted(b) && relative(a).is_some_and(|r| b.ends_with(&r)))
        || (hosted(a) && relative(b).is_some_and(|r| a.ends_with(&r)))
}

/// True when two keys ([`keys`]) are one page ([`same_page`]), a Markdown link to one page,
/// or one word with a link added or dropped: a link put on words already there ("the Angular commit
/// convention" → "the [Angular commit convention](…)") says where to read more, not another
/// fact. A link's target changed is another page.
fn same_linked_word(a: &str, b: &str) -> bool {
    match (a.split_once("]("), b.split_once("](")) {
        (Some((text_a, page_a)), Some((text_b, page_b))) => {
            text_a == text_b && same_page(page_a, page_b)
        }
        (Some((text, _)), None) => text == b,
        (None, Some((text, _))) => text == a,
        (None, None) => same_page(a, b),
    }
}

/// Short function words: changing them rewords a statement.
const FUNCTION_WORDS: &[&str] = &[
    "a", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "do", "does", "each", "every", "for", "from", "here", "how", "i", "if", "in", "into",
    "is", "it", "its", "just", "may", "might", "more", "most", "must", "no", "not", "of", "on",
    "only", "or", "our", "please", "should", "so", "some", "than", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "those", "to", "us", "very", "was", "we", "were",
    "what", "when", "which", "who", "why", "will", "with", "would", "you", "your",
];

/// A word that carries meaning: not punctuation, not a function word.
fn is_content(token: &str) -> bool {
    token.chars().any(char::is_alphanumeric)
        && !FUNCTION_WORDS.contains(&token.to_lowercase().as_str())
}

/// A code span, or a word [`values`] reads as a value.
fn is_value_token(token: &str) -> bool {
    token.starts_with('`') || is_value(core(token))
}

/// `a` and `b` are one text with typos fixed: word by word (a code span's words too), each
/// the same or a typo fixed ([`is_typo_word`], as in a `value` when they are one). A changed
/// value is no typo: a version one digit apart, a path one letter apart (`agents.md`,
/// `agent.md`), a short word (`doc`, `docs`).
fn is_typo(a: &str, b: &str, value: bool, stemmer: &Stemmer) -> bool {
    fn split(t: &str) -> Vec<&str> {
        core(t).split_whitespace().map(core).collect()
    }
    let (a, b) = (split(a), split(b));
    a.len() == b.len()
        && a != b
        && a.iter()
            .zip(&b)
            .all(|(x, y)| x == y || hyphenated(x, y) || is_typo_word(x, y, value, stemmer))
}

/// `token` is a word of letters joined by hyphens (`hard-code`, `e-mail`), not in a code
/// span: prose, whatever [`is_value`] makes of its hyphen.
fn hyphenated_word(token: &str) -> bool {
    let word = core(token);
    !token.starts_with('`')
        && word.contains('-')
        && word
            .split('-')
            .all(|part| !part.is_empty() && part.chars().all(char::is_alphabetic))
}

/// `a` and `b` are one word written with a hyphen and without, or with it elsewhere:
/// `hard-code` and `hardcode`, `e-mail` and `email`, `Re-run` and `rerun`.
fn hyphenated(a: &str, b: &str) -> bool {
    let bare = |w: &str| w.replace('-', "").to_lowercase();
    (a.contains('-') || b.contains('-')) && bare(a) == bare(b) && !bare(a).is_empty()
}

/// `b` is the word `a` with a typo fixed, or the other way round. Both are words of letters
/// alone. A plain word of four letters or more may be replaced by another form of itself
/// (the same stem) or by one within a fifth of its letters; a word of a `value` (a command's,
/// a tool's name) only by itself with one letter dropped, added, or two next to each other
/// swapped, its case as written, and only from five letters (`goftumpt`, `gofumpt`; but
/// `eslint` and `tslint` are two tools, and `devtoolsLogs` and `DevtoolsLog` two names).
fn is_typo_word(a: &str, b: &str, value: bool, stemmer: &Stemmer) -> bool {
    let letters =
        |w: &str, least: usize| w.chars().count() >= least && w.chars().all(char::is_alphabetic);
    let least = if value { 5 } else { 4 };
    // `async` for `sync` is a letter apart and the opposite.
    if !letters(a, least) || !letters(b, least) || opposites(a, b) {
        return false;
    }
    // A value is compared as written: a letter's case changed with one dropped is another
    // name (`devtoolsLogs`, `DevtoolsLog`).
    if value {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        return one_letter_apart(&a, &b);
    }
    let (a, b) = (a.to_lowercase(), b.to_lowercase());
    if stemmer.stem(&a) == stemmer.stem(&b) {
        return true;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
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

/// `a` and `b` differ by one letter dropped or added, or by two next to each other swapped.
fn one_letter_apart(a: &[char], b: &[char]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let head = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    match long.len() - short.len() {
        0 => {
            head + 1 < short.len()
                && short[head] == long[head + 1]
                && short[head + 1] == long[head]
                && short[head + 2..] == long[head + 2..]
        }
        1 => short[head..] == long[head + 1..],
        _ => false,
    }
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
    fn formatting_is_no_part_of_a_statement() {
        for (written, stated) in [
            ("**Note:** run `cargo  fmt`.", "run `cargo fmt`"),
            (
                "Important: $ git checkout -b my-fix",
                "$ git checkout -b my-fix",
            ),
            ("**Tip**: use\n`uv sync`", "use `uv sync`"),
            ("  *Deploys use pnpm 9.*  ", "Deploys use pnpm 9"),
            ("__Never commit secrets__", "Never commit secrets"),
            ("- **Note:** run the tests.", "run the tests"),
            ("12. \"Use pnpm\"", "Use pnpm"),
            (
                "## Releases are tagged `vX.Y.Z`",
                "Releases are tagged `vX.Y.Z`",
            ),
            ("> Never force-push", "Never force-push"),
            ("-v enables verbose output", "-v enables verbose output"),
            ("3.12 is required", "3.12 is required"),
            (
                "\u{201c}Don\u{2019}t\u{200b} push\u{2026}\u{201d}",
                "Don't push",
            ),
            // What the formatting does not add is kept: a lone `.` argument, emphasis
            // inside, a word that is no label.
            ("Format with `ruff format .`", "Format with `ruff format .`"),
            ("Run ruff format .", "Run ruff format ."),
            ("And so on...", "And so on"),
            ("Run **all** the tests", "Run **all** the tests"),
            (
                "**all** tests, and **no** warnings",
                "**all** tests, and **no** warnings",
            ),
            ("Note that tests run nightly", "Note that tests run nightly"),
            ("Setup: see the wiki", "Setup: see the wiki"),
            ("Note:", "Note"),
            ("Run the tests with:", "Run the tests with"),
            ("Never push to main!", "Never push to main"),
            ("Call `std::`", "Call `std::`"),
            ("Run ruff format .:", "Run ruff format ."),
        ] {
            assert_eq!(as_stated(written), stated, "{written:?}");
        }
        assert!(matches!(as_stated("- Run the tests."), Cow::Borrowed(_)));
        assert!(two_statements(
            "Install it with `cargo install cargo-insta`.",
            "- install it with cargo install cargo-insta"
        )
        .is_none());
        assert!(two_statements("Use pnpm 8", "Use pnpm 9").is_some());
    }

    #[test]
    fn word_lists_are_sorted_for_their_search() {
        for list in [
            UNITS,
            ORDER_WORDS,
            TOOL_PLACES,
            AFTER_TOOL,
            PLACES,
            FREQUENCIES,
            LOG_LEVELS,
            STAGES,
            ENVIRONMENTS,
            PROGRAMS,
            AUXILIARIES,
        ] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn abbreviations_are_sorted_for_their_search() {
        assert!(ABBREVIATIONS.windows(2).all(|w| w[0] < w[1]));
        assert!(ABBREVIATIONS
            .iter()
            .all(|(short, long)| short.len() < long.len()));
    }

    #[test]
    fn words_written_short_or_long_reword() {
        for (a, b) in [
            ("Install deps with pnpm", "Install dependencies with pnpm"),
            (
                "Build the docs with mkdocs",
                "Build the documentation with mkdocs",
            ),
            (
                "Review every PR before merging",
                "Review every pull request before merging",
            ),
            (
                "Keep secrets out of the repo",
                "Keep secrets out of the repository.",
            ),
        ] {
            assert!(rewords(a, b), "{a:?} -> {b:?}");
            assert!(rewords(b, a), "{b:?} -> {a:?}");
            assert!(!changed_value(a, b), "{a:?} -> {b:?}");
        }
        for (a, b) in [
            // The same words: nothing reworded.
            ("Install deps with pnpm", "Install deps with pnpm"),
            // Another word beside.
            (
                "Install deps with pnpm",
                "Install dev dependencies with pnpm",
            ),
            // A name or a value is no abbreviation: the dev branch is not the development one.
            (
                "Send pull requests to the dev branch",
                "Send pull requests to the development branch",
            ),
            ("Run `make docs`", "Run `make documentation`"),
        ] {
            assert!(!rewords(a, b), "{a:?} -> {b:?}");
        }
    }

    #[test]
    fn a_word_written_with_a_hyphen_or_without_rewords() {
        for (a, b) in [
            ("Don't hardcode credentials", "Don't hard-code credentials"),
            ("Don't hardcode credentials", "Never hard-code credentials"),
            (
                "Re-run the migrations after a schema change",
                "Rerun the migrations after a schema change",
            ),
            (
                "Send an e-mail to the maintainers",
                "Send an email to the maintainers",
            ),
            (
                "Run pre-commit before pushing",
                "Run precommit before pushing",
            ),
        ] {
            assert!(rewords(a, b), "{a:?} -> {b:?}");
            assert!(rewords(b, a), "{b:?} -> {a:?}");
            assert!(!changed_value(a, b) && !updates(a, b), "{a:?} -> {b:?}");
        }
        // A name with a hyphen that changed is still a value changed, and a code span is
        // code, not prose.
        for (a, b) in [
            ("Use the app-server crate", "Use the server crate"),
            ("Use the app-server crate", "Use the exec-server crate"),
        ] {
            assert!(!rewords(a, b), "{a:?} -> {b:?}");
            assert!(changed_value(a, b), "{a:?} -> {b:?}");
        }
        assert!(!hyphenated_word("`hard-code`") && !hyphenated_word("--fix"));
        assert!(!hyphenated("-", "") && !hyphenated("pnpm", "npm"));
    }

    #[test]
    fn a_rule_worded_another_way_rewords() {
        for (a, b) in [
            ("Do not commit secrets", "Never commit secrets"),
            ("Don't use global state", "Avoid global state"),
            (
                "Never use mocks in integration tests",
                "Avoid mocks in integration tests",
            ),
            (
                "Make sure to run `cargo fmt` before pushing",
                "Always run `cargo fmt` before pushing",
            ),
            (
                "Ensure all tests pass before merging",
                "Make sure all tests pass before merging",
            ),
            (
                "Always run the formatter before committing",
                "Run the formatter before you commit",
            ),
            (
                "Prefer `pathlib` over `os.path`",
                "Favor `pathlib` over `os.path`",
            ),
            (
                "Use `pathlib` instead of `os.path`",
                "Use `pathlib` rather than `os.path`",
            ),
        ] {
            assert!(rewords(a, b), "{a:?} -> {b:?}");
            assert!(rewords(b, a), "{b:?} -> {a:?}");
            assert!(!changed_value(a, b), "{a:?} -> {b:?}");
        }
        for (a, b) in [
            // A rule reversed, dropped or turned into its opposite.
            ("Never commit lockfiles", "Always commit lockfiles"),
            ("Do not commit lockfiles", "Commit lockfiles"),
            ("Avoid global state", "Use global state"),
            ("Prefer composition over inheritance", "Avoid composition"),
            // Another word beside the rewording.
            ("Do not commit secrets", "Never commit large files"),
            (
                "Ensure all tests pass before merging",
                "Ensure the docs build before merging",
            ),
            // A value's place: the words around it reword, the value changes.
            (
                "Prefer `pathlib` over `os.path`",
                "Favor `os.path` over `pathlib`",
            ),
        ] {
            assert!(!rewords(a, b), "{a:?} -> {b:?}");
        }
    }

    #[test]
    fn a_change_said_in_words_updates() {
        for (old, new) in [
            (
                "We use Jest for tests",
                "We switched from Jest to Vitest for tests",
            ),
            ("The docs live in `docs/`", "The docs moved to `site/`"),
            ("Use Python 3.10", "Use Python 3.12 from now on"),
            (
                "Staging is at staging.example.com",
                "Staging moved to stage.example.com",
            ),
            (
                "The team uses Slack for chat",
                "The team moved from Slack to Discord",
            ),
            (
                "Max upload size is 10 MB",
                "Max upload size was raised to 25 MB",
            ),
            (
                "Auth tokens expire after 1 hour",
                "Auth tokens now expire after 15 minutes",
            ),
            (
                "The database is MySQL 5.7",
                "We upgraded the database to MySQL 8.0",
            ),
            (
                "Use `requests` for HTTP calls",
                "Use `httpx` instead of `requests` for HTTP calls",
            ),
            (
                "Deploys go to staging first",
                "Deploys now go to production first",
            ),
            (
                "Alice owns the billing service",
                "Bob now owns the billing service",
            ),
            (
                "Build with `npm run build`",
                "Actually, build with `pnpm build`",
            ),
            ("Use `requests`", "Use `httpx` instead of `requests`"),
            (
                "The config file is `config.yaml`",
                "The config file is `config.toml` (not `config.yaml`)",
            ),
        ] {
            assert!(says_changed(old, new), "{old:?} -> {new:?}");
            assert!(updates(old, new), "{old:?} -> {new:?}");
        }
        for (old, new) in [
            // Nothing changed but the words.
            ("Deploys use pnpm 8", "Deploys now use pnpm 8"),
            (
                "Builds take about 10 minutes",
                "A build now takes about ten minutes",
            ),
            // Already said so.
            (
                "Run `npm ci` instead of `npm install` in CI",
                "In CI, use `npm ci` instead of `npm install`",
            ),
            // A typo fixed beside a `from`.
            (
                "The window you debug from is reffered to as *Main*",
                "The window you debug from is referred to as *Main*",
            ),
            // Another subject, or a fact beside.
            ("CI runs on Travis", "Nightly builds now run on Buildkite"),
            (
                "Logs are kept for 30 days",
                "Metrics are now kept for 90 days",
            ),
            ("The frontend uses React 17", "The backend now uses Go 1.22"),
            ("Tests run with pytest", "Tests now also run on Windows"),
            // A contrast within the new rule, of nothing the old one named.
            (
                "typescript-go primarily uses `hereby` to build, run tests and other tasks",
                "typescript-go primarily uses snapshot/baseline/golden tests rather than unit tests",
            ),
        ] {
            assert!(!says_changed(old, new), "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn a_value_said_to_be_retired_is_changed() {
        for (old, new) in [
            ("Use the `v1` API", "The `v1` API is deprecated; use `v2`"),
            (
                "Load the config with `foo()`",
                "Load the config with `foo()` (deprecated)",
            ),
        ] {
            assert!(changed_value(old, new), "{old:?} -> {new:?}");
            assert!(changed_value(new, old), "{new:?} -> {old:?}");
        }
        // A stage that retires nothing.
        assert!(!changed_value(
            "Use the `v2` API",
            "Use the stable `v2` API"
        ));
    }

    #[test]
    fn a_subject_replaced_in_another_form_or_added_to() {
        assert!(subject_replaced(
            "Tests run in Docker",
            "Linting runs in Docker too"
        ));
        assert!(subject_replaced(
            "Linting runs in Docker",
            "Tests also run in Docker"
        ));
        assert!(!subject_replaced(
            "Tests run in Docker",
            "Tests also run in Docker"
        ));
        assert!(!subject_replaced(
            "Tests run in Docker",
            "Linting runs in Podman"
        ));
    }

    #[test]
    fn two_subjects_after_one_lead_in_are_no_update() {
        // agentmem-dev's pydantic-ai:27 and :26: two rules of one file, both true.
        let docs = "After a class rename in pydantic-ai, documentation should reference only \
                    the new class.";
        let tests = "After a class rename in pydantic-ai, the test suite must use the new \
                     class, plus a new test asserting `pytest.warns(DeprecationWarning, \
                     match=\"Use `NewClass` instead.\")` when instantiating the old class.";
        assert!(!updates(docs, tests));
        assert!(!updates(tests, docs));
        // The same lead-in, the same subject, its value changed.
        assert!(updates(
            "After a release, the changelog must name the version `1.2`.",
            "After a release, the changelog must name the version `1.3`.",
        ));
        // updates-dev's upd-0148: an imperative rewritten after the same lead-in.
        assert!(updates(
            "When an agent needs multiple fields, build one single-line CEL string with \
             labels and separators. Example: `input: \"${'Ticket ID: ' + text(state, \
             'ticket_id')}\"`.",
            "When an agent needs multiple fields, write one text value with labels and \
             separators. Example value: `Ticket ID: ${state.ticket_id}`.",
        ));
    }

    #[test]
    fn a_value_said_instead_of_another_replaces_that_one() {
        // anthropic's CLAUDE.md: two helpers of `_utils`, both to use.
        assert!(!updates(
            "Use `lru_cache` from `_utils`.",
            "Use `signature_without_evaluating_annotations` from `_utils` for it, not \
             `inspect.signature`.",
        ));
        // What it is said instead of is the old value, or the old value in another form.
        assert!(updates(
            "Use `npm install`",
            "Use `pnpm install`, not `npm install`"
        ));
        assert!(updates("Use `npm install`", "Use `pnpm install`"));
        assert!(!replaces_another(
            "Use `npm install`",
            "Use `pnpm install`, not `npm i`"
        ));
        assert!(replaces_another(
            "Use `npm install`",
            "Use `pnpm install`, not `yarn`"
        ));
        // A value of one character is the old one's when the old statement names it.
        for new in [
            "Deploys use pnpm 10, not 9",
            "Deploys use pnpm 10 (not 9)",
            "Deploys use pnpm 10 instead of 9",
        ] {
            assert!(updates("Deploys use pnpm 9", new), "{new}");
        }
        assert!(replaces_another(
            "Deploys use pnpm 9",
            "Builds use Node 20, not 8"
        ));
    }

    #[test]
    fn what_was_said_not_to_choose_chosen_is_an_update() {
        // A project's CONTRIBUTING.md (npm): the branch to base changes on, reversed.
        let old = "Changes should be based on the **dev** branch, not master as master is \
                   considered publicly released code. Each breaking change should be \
                   recorded in [BreakingChanges.md](BreakingChanges.md).";
        let new = "Changes should be based on the **master** branch. Each breaking change \
                   should be recorded in [BreakingChanges.md](BreakingChanges.md).";
        assert!(updates(old, new));
        for (old, new) in [
            (
                "Base changes on the dev branch, not master",
                "Base changes on the master branch",
            ),
            (
                "Use the staging database instead of the local one",
                "Use the local database",
            ),
            (
                "Store sessions in cookies rather than the database",
                "Store sessions in the database",
            ),
        ] {
            assert!(chooses_the_rejected(old, new), "{old} → {new}");
            // Either way round, the two are no duplicate.
            assert!(changed_value(new, old), "{new} → {old}");
        }
        // Not when the new statement rejects something too, nor when it says more than
        // the choice, nor when what it names was not what the old one rejected.
        for new in [
            "Base changes on the master branch, not dev",
            "Base changes on the master branch and tag them",
            "Base changes on the main branch",
        ] {
            assert!(
                !chooses_the_rejected("Base changes on the dev branch, not master", new),
                "{new}"
            );
        }
        // Dropping the rejection alone chooses nothing new.
        assert!(!chooses_the_rejected("Use pnpm, not npm", "Use pnpm"));
    }

    #[test]
    fn a_value_said_to_be_replaced_is_an_update() {
        // The new value with the old one named as what it replaces, in the forms people write
        // it: the new statement names both values, so by its words alone it repeats the old
        // one (the new fact was skipped as a duplicate).
        for (old, new) in [
            ("Deploys use pnpm 8", "Deploys now use pnpm 9, not pnpm 8"),
            ("Deploys use pnpm 8", "Deploys use pnpm 9 (was pnpm 8)"),
            // The parenthesis closed after a value ends what it names.
            ("2 spaces indentation", "4 (was 2) spaces indentation"),
            (
                "Unit tests run on Jest",
                "Unit tests run on Vitest (was Jest)",
            ),
            (
                "The linter is `flake8`",
                "The linter is `ruff` (previously `flake8`)",
            ),
            (
                "The staging API runs on port 8080",
                "The staging API runs on port 9090 (formerly 8080)",
            ),
            (
                "Run tests with `npm test`",
                "Use `pnpm test` rather than `npm test` to run tests",
            ),
            (
                "Deploys use pnpm 8",
                "Deploys no longer use pnpm 8; they use pnpm 9",
            ),
            (
                "Run tests with `npm test`",
                "Run tests with `pnpm test`; `npm test` is no longer used",
            ),
            (
                "Use `black` to format Python code",
                "`black` is no longer used; format Python code with `ruff format`",
            ),
            (
                "Unit tests use Jest",
                "Replace Jest with Vitest for unit tests",
            ),
            (
                "Unit tests use Jest",
                "Jest was replaced by Vitest for unit tests",
            ),
            (
                "Format Python code with `black`",
                "Stop using `black`; format Python code with `ruff format`",
            ),
            (
                "Format Python code with `black`",
                "Switch from `black` to `ruff format` for Python formatting",
            ),
            (
                "Use npm for installs",
                "Don't use npm anymore; use pnpm for installs",
            ),
            (
                "Format Python code with `black`",
                "`black` isn't used anymore; format Python code with `ruff format`",
            ),
        ] {
            assert!(says_changed(old, new), "{old} => {new}");
            assert!(updates(old, new), "{old} => {new}");
        }
        // What is said to be replaced is another thing than the old statement names.
        for (old, new) in [
            (
                "Unit tests run on Jest",
                "E2E tests run on Playwright (formerly Cypress)",
            ),
            ("Deploys use pnpm 8", "CI uses Node 20, not Node 18"),
            (
                "The staging API runs on port 8080",
                "The admin UI was moved from port 3000 to port 4000",
            ),
            ("Use npm for installs", "We don't use yarn anymore"),
            // The subject replaced with the value: another fact, though "now" says a change.
            ("Unit tests use Jest", "E2E tests now use Playwright"),
        ] {
            assert!(!says_changed(old, new), "{old} => {new}");
            assert!(!updates(old, new), "{old} => {new}");
        }
        // `not` after a verb says what not to do, and a lone `from` names no old value.
        assert!(updates("Use Python 3.10", "Use Python 3.12 from now on"));
        let words = |text: &str| {
            let t = tokens(text);
            let k = keys(&t);
            let said: Vec<&str> = replaced_words(&k, true).iter().map(|&i| t[i]).collect();
            said.join(" ")
        };
        assert_eq!(words("Deploys use pnpm 9, not pnpm 8"), "pnpm 8");
        assert_eq!(words("Moved from pnpm 8 to pnpm 9"), "pnpm 8");
        assert_eq!(words("`npm test` is no longer used"), "`npm test` used");
        assert_eq!(words("Do not use pnpm"), "");
        assert_eq!(words("Replace Jest with Vitest"), "Jest");
        assert_eq!(words("Jest was replaced by Vitest"), "Jest");
        assert_eq!(words("Stop using black"), "black");
        assert_eq!(words("`black` isn't used anymore"), "`black` used");
        assert_eq!(words("Replace the tests"), "");
        assert_eq!(
            words("Use the local one, not the staging one"),
            "staging one"
        );
        assert_eq!(words("Use Python 3.12 from now on"), "");
    }

    #[test]
    fn a_short_rule_with_a_value_added_is_extended() {
        for (old, new) in [
            (
                "Tests run with pytest -x",
                "Tests run with pytest -x -n auto",
            ),
            (
                "Supported Python versions: 3.10, 3.11",
                "Supported Python versions: 3.10, 3.11, 3.12",
            ),
        ] {
            assert!(extends(old, new), "{old} => {new}");
            assert!(updates(old, new), "{old} => {new}");
            assert!(!extends(new, old), "{new} => {old}");
        }
        // Too short to tell a fact added from a pointer; no new value; not in order.
        assert!(!extends(
            "Node 18 is required",
            "Node 18 is required (see `.nvmrc`)"
        ));
        assert!(!extends(
            "Tests run with pytest -x",
            "Tests run with pytest -x, which is faster"
        ));
        assert!(!extends(
            "Tests run with pytest -x",
            "With pytest -x tests run faster: `-n auto`"
        ));
    }

    #[test]
    fn a_narrower_subject_is_another_subject() {
        let (old, new) = (
            "The API is versioned under /v1",
            "The admin API is versioned under /admin/v1",
        );
        assert!(subject_replaced(old, new) && subject_replaced(new, old));
        assert!(!updates(old, new) && !updates(new, old));
        // The same subject: its value changed; a word put in elsewhere; a negation.
        assert!(updates(old, "The API is versioned under /v2"));
        for (old, new) in [
            (
                "The API is versioned under /v1",
                "The API is now versioned under /v2",
            ),
            (
                "The API server listens on port 4000",
                "The API server listens on port 4000",
            ),
            ("The API is stable", "The API is not stable"),
        ] {
            let (a, b) = (tokens(old), tokens(new));
            assert!(!narrower_subject(&a, &b), "{old} => {new}");
        }
    }

    #[test]
    fn a_clause_joined_to_a_statement_extends_it() {
        for (old, new) in [
            ("Use pnpm", "Use pnpm, and commit the lockfile"),
            (
                "Integration tests need Docker",
                "Integration tests need Docker and a Postgres container on port 5433",
            ),
            (
                "Run the tests before pushing",
                "Run the tests before pushing, and the linter too",
            ),
            (
                "Commit messages follow Conventional Commits",
                "Commit messages follow Conventional Commits; scope is the crate name",
            ),
            (
                "Write your asserts as `expected == actual` to line them up nicely:",
                "Write your asserts as `expected == actual` to line them up nicely, and leave \
                 an empty line before them:",
            ),
            // A sentence added after it (zruntime's AGENTS.md), or between two of its own
            // (tokio-metrics' CONTRIBUTING.md).
            (
                "Both helpers work under any executor.",
                "Both helpers work under any executor. Neither is built on WASI, which cannot \
                 start a thread for the work.",
            ),
            (
                "Then open a PR for the release and get it approved. Once merged, the release \
                 workflow publishes it.",
                "Then open a PR for the release and get it approved. Even with bypass \
                 permissions, always use a PR so CI runs first. Once merged, the release \
                 workflow publishes it.",
            ),
        ] {
            assert!(extends(old, new), "{old} => {new}");
            assert!(updates(old, new), "{old} => {new}");
            assert!(!extends(new, old), "{new} => {old}");
        }
        for (old, new) in [
            // A reason, a place, a word only.
            (
                "Run the tests before pushing",
                "Run the tests before pushing, so CI stays green",
            ),
            (
                "Run migrations with `alembic upgrade head`",
                "Run migrations with `alembic upgrade head` before starting the server",
            ),
            ("Use pnpm", "Use pnpm; always"),
            ("Use pnpm.", "Use pnpm. Always."),
            (
                "Run the tests. Then push.",
                "Run the tests. Then push. Always.",
            ),
            (
                "Keep pull requests small",
                "Keep pull requests small and easy to review",
            ),
            // Not all of it, as written.
            ("Use pnpm for installs", "Use pnpm, and commit the lockfile"),
        ] {
            assert!(!joins_a_clause(old, new), "{old} => {new}");
            assert!(!adds_a_sentence(old, new), "{old} => {new}");
        }
        // A sentence moved, or one of them rewritten, is no sentence added.
        assert!(!adds_a_sentence(
            "Run the tests. Then push the branch.",
            "Then push the branch. Run the tests.",
        ));
        assert!(!adds_a_sentence(
            "Run the tests. Then push the branch.",
            "Run all the tests. Then push the branch to origin.",
        ));
    }

    #[test]
    fn a_word_said_in_place_of_another_is_a_new_value() {
        // Tools in lower case, said in place of the old one.
        for (old, new) in [
            (
                "The build uses webpack",
                "The build uses vite instead of webpack",
            ),
            ("The build uses webpack", "The build uses vite, not webpack"),
            (
                "Use npm to install dependencies",
                "Use pnpm instead of npm to install dependencies",
            ),
            (
                "We use yarn for the frontend",
                "We switched from yarn to pnpm for the frontend",
            ),
            (
                "Format with black",
                "Format with ruff format instead of black",
            ),
            (
                "Run cargo test",
                "Run cargo nextest run instead of cargo test",
            ),
        ] {
            assert!(updates(old, new), "{old} => {new}");
        }
        // Another subject said of in place of the old value, or another fact beside it.
        for (old, new) in [
            (
                "The API returns JSON",
                "The CLI prints tables instead of JSON",
            ),
            (
                "Errors are logged to stderr",
                "Print results to stdout instead of stderr",
            ),
            (
                "Run tests with pytest",
                "Run the linter with ruff instead of flake8",
            ),
            (
                "Store secrets in Vault",
                "Store config in env vars instead of files",
            ),
        ] {
            assert!(!updates(old, new), "{old} => {new}");
        }
        let (b, kb) = {
            let b = tokens("Use ruff format instead of black, not flake8");
            let kb = keys(&b);
            (b, kb)
        };
        let said: Vec<&str> = replacing_words(&b, &kb).iter().map(|&i| b[i]).collect();
        assert_eq!(said, ["ruff", "format", "black"]);
    }

    #[test]
    fn change_words_are_sorted() {
        assert!(CHANGE_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn phrasings_are_sorted() {
        assert!(PHRASINGS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn opposites_are_sorted_for_their_search() {
        assert!(OPPOSITES.iter().all(|(a, b)| a < b));
        assert!(OPPOSITES.windows(2).all(|w| w[0] < w[1]));
        assert!(opposites("Enable", "disable") && opposites("after", "Before"));
        assert!(!opposites("enable", "enable") && !opposites("dev", "prod"));
    }

    #[test]
    fn a_convention_chosen_otherwise_is_an_update() {
        // A preference or a convention is a choice between alternatives: the other one
        // chosen is a newer state of it, never a rewording (the new choice was skipped).
        for (old, new) in [
            (
                "The user prefers tabs for indentation",
                "The user prefers spaces for indentation",
            ),
            (
                "Error messages should be lowercase",
                "Error messages should be capitalized",
            ),
            ("Keep log messages concise", "Keep log messages verbose"),
            (
                "Use optimistic locking for orders",
                "Use pessimistic locking for orders",
            ),
        ] {
            assert!(changed_value(old, new), "{old} => {new}");
            assert!(!rewords(old, new), "{old} => {new}");
        }
    }

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
            // A typo fixed in a value: a letter dropped, added, or two swapped.
            ("First, try `goftumpt -w .`.", "First, try `gofumpt -w .`."),
            (
                "A container engine (`docker` or `podmand`)",
                "A container engine (`docker` or `podman`)",
            ),
            ("Lint with `rufff`", "Lint with `rfuff`"),
            // A link to another place on the same page.
            (
                "Use [`yarn@v1`](https://yarnpkg.com/docs/install/#mac-stable).",
                "Use [`yarn@v1`](https://yarnpkg.com/docs/install).",
            ),
        ] {
            assert!(same_values(a, b), "{a:?} / {b:?}");
        }
        // A letter for another, or a short name: another tool.
        for (a, b) in [
            ("Lint with `eslint`", "Lint with `tslint`"),
            ("Install with `pnpm`", "Install with `npm`"),
            ("Format with `black`", "Format with `blacken`"),
            // A letter dropped with a case changed: another name.
            ("Update `devtoolsLogs` too", "Update `DevtoolsLog` too"),
        ] {
            assert!(!same_values(a, b), "{a:?} / {b:?}");
        }
    }

    #[test]
    fn an_entry_of_a_list_is_its_key() {
        for (old, new) in [
            (
                "[mem0 workflow] Vouch, `vouch-check-pr.yml`: Comments on PRs from authors \
                 absent from `VOUCHED.td`.",
                "[mem0 workflow] Vouch, `vouch-check-pr.yml`: Closes PRs from authors \
                 denounced in `VOUCHED.td`.",
            ),
            (
                "[crewAI CLI] crewai flow kickoff   # Legacy flow execution",
                "[crewAI CLI] crewai flow kickoff   # Deprecated alias for crewai run",
            ),
            (
                "`docs/` — the user manual",
                "`docs/` — the manual and the API reference",
            ),
        ] {
            assert!(same_entry(old, new), "{old:?} -> {new:?}");
            assert!(updates(old, new), "{old:?} -> {new:?}");
        }
        for (old, new) in [
            // Another key, another context, a key that names no value.
            ("`src/`: the code", "`docs/`: the manual"),
            (
                "[ruff] `lint.yml`: runs on push",
                "[uv] `lint.yml`: runs nightly",
            ),
            ("Note: run the tests first", "Note: the docs build on push"),
            // A sentence before a colon is no key.
            (
                "Run `cargo test` before you push to a shared branch: it catches regressions",
                "Run `cargo test` before you push to a shared branch: CI is slow",
            ),
            // The same entry, said again; no entry at all.
            ("`src/`: the code", "`src/`: The code"),
            ("Run `cargo test` first", "Run `cargo test` last"),
        ] {
            assert!(!same_entry(old, new), "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn a_statement_with_a_clause_added_holds_the_other() {
        let short = "Make sure to read the issue instructions carefully. If something isn't \
                     clear, ask for clarification!";
        for long in [
            "Make sure to read the issue instructions carefully. Not all issues have \
             instructions, though, so if something isn't clear, ask for clarification!",
            "Make sure to read the issue instructions carefully. If something isn't clear, \
             ask for clarification! Then write the tests first.",
            // Case and punctuation are no words.
            "make sure to read the issue instructions carefully; if something isn't clear \
             ask for clarification",
        ] {
            assert!(holds_the_other(short, long), "{long:?}");
            assert!(holds_the_other(long, short), "{long:?}");
        }
        for other in [
            // A word of it replaced, or two swapped.
            "Make sure to read the task instructions carefully. If something isn't clear, \
             ask for clarification!",
            "Make sure to read the issue instructions carefully. If something isn't clear, \
             clarification ask for!",
        ] {
            assert!(!holds_the_other(short, other), "{other:?}");
        }
        // Too short to say which statement it is.
        assert!(!holds_the_other(
            "Run the tests",
            "Run the tests on every push"
        ));
    }

    #[test]
    fn an_update_replaces_values_a_name_flags_or_a_list_item() {
        for (old, new) in [
            // Values replaced, one plain word beside them.
            (
                "Run scripts with `rye run python x.py` or the virtual environment",
                "Run scripts with `uv run python x.py` or manually the virtual environment",
            ),
            // A value changed by one letter is no typo fix.
            (
                "See `scripts/build.sh` for the steps",
                "See `scripts/build.js` for the steps",
            ),
            (
                "Docs live in docs/agents.md today",
                "Docs live in docs/agent.md today",
            ),
            ("Prefix docs PRs with `doc`", "Prefix docs PRs with `docs`"),
            // One word for another, one of them a name or a number.
            (
                "Runs Jest tests with ESM support",
                "Runs Vitest tests with ESM support",
            ),
            (
                "There are three phases to adding a rule",
                "There are four phases to adding a rule",
            ),
            (
                "Join the #frontend channel first",
                "Join the #eng-ui-ux channel first",
            ),
            // Flags only added or only dropped.
            (
                "Format with cargo fmt",
                "Format with cargo +nightly fmt --all",
            ),
            (
                "Create it with crewai create flow --skip_provider",
                "Create it with crewai create flow",
            ),
            // Values replaced, two plain words beside them.
            (
                "Snapshots are refreshed with the `ANTHROPIC_LIVE=1` variable set",
                "Snapshots are refreshed with the `--http-record` flag set",
            ),
            // And the words that say what kind of value it is.
            (
                "To refresh the snapshots, run the tests with the `ANTHROPIC_LIVE=1` \
                 environment variable enabled.",
                "To refresh the snapshots, run the tests with the `--http-record` flag:",
            ),
            // A list of values replaced, however long.
            (
                "Check each pull request with `ruff`, `mypy`, `pytest` and `coverage` in CI",
                "Check each pull request with `oxlint`, `tsc`, `vitest` and `c8` in CI",
            ),
            // A list item dropped or added.
            (
                "Ruff excludes `embedchain/` and `openmemory/` here",
                "Ruff excludes `openmemory/` here",
            ),
            (
                "Build needs Rust, a C compiler, and CMake",
                "Build needs Rust and a C compiler",
            ),
            ("Lint `src/` in CI", "Lint `src/` and `tests/` in CI"),
            // A plain item added to a list.
            (
                "NEVER assume clippy warnings are pre-existing",
                "NEVER assume clippy warnings or test failures are pre-existing",
            ),
            // A tool one letter apart from another is another tool, no typo.
            (
                "Lint the code with `eslint` before a commit",
                "Lint the code with `tslint` before a commit",
            ),
            // A short statement with its value changed.
            ("Use Node 18", "Use Node 20"),
            ("Port 8080", "Port 9090"),
            ("Tests use Jest", "Tests use Vitest"),
            ("Use Node 18 and npm 9", "Use Node 20 and npm 10"),
            ("`NODE_VERSION=18`", "`NODE_VERSION=20`"),
            // The two things an order's word sets in order, swapped.
            ("Use pnpm instead of npm", "Use npm instead of pnpm"),
            ("Prefer Vitest over Jest", "Prefer Jest over Vitest"),
            ("Run lint before tests", "Run tests before lint"),
            // A number with its unit.
            ("Timeout is 30 seconds", "Timeout is 1 minute"),
            (
                "The request timeout is 30 seconds",
                "The request timeout is 2 minutes",
            ),
            (
                "Wait 30 seconds before retrying",
                "Wait 30 minutes before retrying",
            ),
            // A rule reversed, however short.
            (
                "Always squash commits when merging",
                "Never squash commits when merging",
            ),
            ("Never squash merge", "Always squash merge"),
            ("Always squash", "Never squash"),
            // A word for its opposite.
            (
                "Enable strict mode in tsconfig",
                "Disable strict mode in tsconfig",
            ),
            (
                "Run the linter before the tests",
                "Run the linter after the tests",
            ),
            (
                "Code review is required for every PR",
                "Code review is optional for every PR",
            ),
            ("Use mocks in unit tests", "Avoid mocks in unit tests"),
            // A letter apart, and opposites: no typo fixed.
            (
                "Prefer async handlers in the API",
                "Prefer sync handlers in the API",
            ),
            // A tool in lower case, another in its place.
            (
                "Type-check with mypy before pushing.",
                "Type-check with pyright before pushing.",
            ),
            (
                "We use yarn to manage dependencies",
                "We use pnpm to manage dependencies",
            ),
            (
                "Use tabs for indentation in Go files",
                "Use spaces for indentation in Go files",
            ),
            ("Use tabs", "Use spaces"),
            ("Format code with black.", "Format code with ruff."),
            (
                "Lint with Ruff: run `ruff check .` before pushing",
                "Lint with Biome: run `biome check .` before pushing",
            ),
            // A convention's other choice, how often.
            ("Use absolute imports", "Use relative imports"),
            (
                "Use single quotes for strings",
                "Use double quotes for strings",
            ),
            (
                "Sort the imports in ascending order",
                "Sort the imports in descending order",
            ),
            ("Load the config eagerly", "Load the config lazily"),
            (
                "We squash merge pull requests",
                "We rebase merge pull requests",
            ),
            ("Releases are cut weekly", "Releases are cut monthly"),
            (
                "The default log level is info",
                "The default log level is debug",
            ),
            (
                "Error messages start with a lowercase letter.",
                "Error messages start with a capital letter.",
            ),
            ("Tests are run in parallel", "Tests are run serially"),
            (
                "Timeouts are given in milliseconds",
                "Timeouts are given in seconds",
            ),
            // A rule that no longer holds; a stage of a feature's life.
            (
                "The old API is still supported",
                "The old API is no longer supported",
            ),
            (
                "Merges require a green CI run",
                "Merges no longer require a green CI run",
            ),
            ("`foo()` is deprecated", "`foo()` was removed"),
            // What the subject is or goes to, at the end.
            ("The default branch is master", "The default branch is main"),
            ("Logs go to stdout.", "Logs go to stderr."),
            // A number changed, the noun after it in the plural.
            ("PRs need one approval", "PRs need two approvals"),
            ("Retry 1 time", "Retry 3 times"),
            // A place's name in lower case, another in its place.
            (
                "Send your pull request to the dev branch.",
                "Send your pull request to the main branch.",
            ),
            (
                "Put the docs in the website folder",
                "Put the docs in the site folder",
            ),
            // In emphasis, a word dropped beside it.
            (
                "Send your pull request specifically to the **dev** branch.",
                "Send your pull request to the main branch.",
            ),
            (
                "Type-check with **mypy** first",
                "Type-check with **pyright** first",
            ),
            (
                "Don't run the migrations in tests",
                "Run the migrations in tests",
            ),
        ] {
            assert!(changed_value(old, new), "{old:?} -> {new:?}");
            assert!(changed_value(new, old), "{new:?} -> {old:?}");
        }
    }

    #[test]
    fn a_command_without_backticks_is_one_value() {
        for (text, command) in [
            (
                "[Install the Python versions for the tests with] cargo run python install",
                Some("cargo run python install"),
            ),
            (
                "To run the docs site locally: npm run start -- --port 3001",
                Some("npm run start -- --port 3001"),
            ),
            (
                "[Run an example with] $ yarn tsn -T examples/a.ts",
                Some("yarn tsn -T examples/a.ts"),
            ),
            (
                "[Start it with] crewai flow kickoff   # the old way",
                Some("crewai flow kickoff"),
            ),
            (
                "[Test with] RUST_LOG=debug INSTA_UPDATE=always cargo nextest run",
                Some("RUST_LOG=debug INSTA_UPDATE=always cargo nextest run"),
            ),
            ("Remember: HOME=/tmp is not set in CI", None),
            ("Note: always run the tests before you commit", None),
            ("Deploys: Tuesdays only", None),
            ("[Style] Prefer early returns.", None),
        ] {
            let v = values(text);
            match command {
                Some(c) => assert!(v.contains(c), "{text:?}: {v:?}"),
                // No command: no value of several words.
                None => assert!(v.iter().all(|v| !v.contains(' ')), "{text:?}: {v:?}"),
            }
        }
        for (old, new) in [
            (
                "[Install the Python versions with] cargo run toolchain install",
                "[Install the Python versions with] cargo run python install",
            ),
            (
                "To start the mock server: npx prism path/to/api.yml",
                "To start the mock server: npx prism mock path/to/api.yml",
            ),
        ] {
            assert!(changed_value(old, new), "{old:?} -> {new:?}");
            assert!(updates(old, new), "{old:?} -> {new:?}");
        }
        assert!(!changed_value(
            "Note: always run the tests before you commit",
            "Note: run all the tests before you push",
        ));
    }

    #[test]
    fn rewordings_typo_fixes_and_asides_are_no_updates() {
        for (old, new) in [
            (
                "Synchronize with the offical repository",
                "Synchronize with the official repository",
            ),
            (
                "First, try `goftumpt -w .` again",
                "First, try `gofumpt -w .` again",
            ),
            (
                "Make sure the binary was installed",
                "Make sure the binaries were install",
            ),
            // A clause moved around an order's word: the same order.
            ("Run lint before committing", "Before committing, run lint"),
            // The same complement, the verb reworded.
            ("Logs go to stdout", "Logs are written to stdout"),
            (
                "Read `AGENTS.md` before you start",
                "Before you start, read `AGENTS.md`",
            ),
            // A capitalized word that starts a sentence or follows a speaker's name is no
            // name: "Sounds" and "Cheers" are words.
            (
                "John: Sounds cool! I'll check it out. Thanks for the tip!",
                "John: Cheers! I'll check them out. Thanks for the tip!",
            ),
            (
                "Run the linter first. Then run the tests",
                "Run the linter first. Next run the tests",
            ),
            // A word for its opposite and a negation: the rule twice reversed. Opposites that
            // pick another subject.
            ("Enable strict mode", "Do not disable strict mode"),
            (
                "The public API is documented",
                "The private API is documented",
            ),
            // Nothing in common but a negation for `always`; more values changed than kept
            // words; a subject changed beside a value.
            ("Never.", "Always."),
            ("Run `a/` in `b/`", "Run `c/` in `d/`"),
            ("API port 8080", "Metrics port 9100"),
            // A value for a plain word said another way around it: something else said of
            // the subject (both true in biome's and in a written store), not a value changed.
            ("Biome tests run with `cargo t`", "Biome tests run quickly"),
            (
                "Never force-push to shared branches",
                "Never rebase shared branches",
            ),
            // A plain word for another; a name only dropped; a value only added, in passing.
            (
                "Define the rule in the registry",
                "Define the violation in the registry",
            ),
            (
                "Files are not modified by the Stainless generator",
                "Files are not modified by the generator",
            ),
            (
                "ruff is written in Rust (1.63.0) today",
                "ruff is written in Rust today",
            ),
            (
                "Build this directory first",
                "Build `macos/` directory first",
            ),
            // Words wrapped otherwise, a URL's punctuation.
            (
                "Read internal/ui/AGENTS.md first",
                "Read `internal/ui/AGENTS.md` first",
            ),
            (
                "See [the guide](https://x.dev/a).",
                "See [the guide](https://x.dev/a)",
            ),
            // Words moved, a path among them.
            (
                "Before starting work on the TUI, read the internal/ui/AGENTS.md file",
                "Read `internal/ui/AGENTS.md` before starting work on the TUI",
            ),
            // A statement about something else.
            (
                "Use the dialog system for lifecycles",
                "Dialogs draw last, over everything else",
            ),
            // Two cases of one rule, each with its own command.
            (
                "If only non-Rust code changed, run `tools/lint.js --js` before committing",
                "If Rust code changed, run `tools/lint.js` before committing",
            ),
            // A word after `use` or `with` that a content word goes on from names no tool.
            (
                "Use descriptive names for tests",
                "Use meaningful names for tests",
            ),
            (
                "I went camping with friends last weekend",
                "I went camping with family last weekend",
            ),
        ] {
            assert!(!changed_value(old, new), "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn a_restructuredtext_literal_is_a_code_span() {
        assert_eq!(
            values("Added ``structlog.func()``."),
            values("Added `structlog.func()`.")
        );
        assert!(same_values("Run ``tox -e docs``", "Run `tox -e docs`"));
        assert!(!same_values(
            "Run ``tox -e docs``",
            "Run `tox -e docs-build`"
        ));
    }

    #[test]
    fn a_link_is_its_text_and_the_page_it_names() {
        // The page changed, the text the same: before, "#1600" was all the link was read as.
        assert!(updates(
            "For an example, see [#1600](https://github.com/encode/starlette/pull/1600).",
            "For an example, see [#1600](https://github.com/Kludex/starlette/pull/1600).",
        ));
        assert!(updates(
            "Contributors guide: [docs/guide/contributors.md](docs/guide/contributors.md)",
            "Contributor guide: [docs/guide/contributors/index.md](docs/guide/contributors/index.md)",
        ));
        // Another place on the same page: the same link.
        assert!(!changed_value(
            "See the [guide](https://x.io/guide#setup) first.",
            "See the [guide](https://x.io/guide#install) first.",
        ));
        assert!(updates(
            "Commits follow the [convention](https://x.io/CONTRIBUTING.md#commits)",
            "Commits follow the [convention](https://x.io/DEVELOPERS.md#commits)",
        ));
        assert!(updates(
            "See `the guide <https://x.io/a>`_ first.",
            "See `the guide <https://x.io/b>`_ first.",
        ));
        // Two paths in a project are two places, however one ends the other.
        assert!(updates(
            "in `langsmith/client.py` for other platform paths.",
            "in `src/langsmith/client.py` for other platform paths.",
        ));
    }

    #[test]
    fn a_link_to_the_same_page_written_otherwise_changes_nothing() {
        for (old, new) in [
            // Another scheme, or none.
            (
                "See the [derived work](http://dexie.org/docs/DerivedWork) page",
                "See the [derived work](https://dexie.org/docs/DerivedWork) page",
            ),
            (
                "Find the entries on [compat-table](kangax.github.io/compat-table/):",
                "Find the entries on [compat-table](https://kangax.github.io/compat-table/):",
            ),
            // Relative to the file, or from the repository's host.
            (
                "Read our [documentation on tests](https://github.com/babel/babel/blob/main/CONTRIBUTING.md#tests).",
                "Read our [documentation on tests](../../CONTRIBUTING.md#tests).",
            ),
            (
                "Fragments are compiled into our [`CHANGELOG.md`](https://github.com/python-attrs/attrs/blob/main/CHANGELOG.md).",
                "Fragments are compiled into our [`CHANGELOG.md`](../CHANGELOG.md).",
            ),
            (
                "First [open an issue on GitHub](issues/new/choose), then a pull request.",
                "First [open an issue on GitHub](https://github.com/o/r/issues/new/choose), then a pull request.",
            ),
            // A reStructuredText link, another scheme.
            (
                "Run the checks with `tox <https://tox.readthedocs.io/en/latest/>`_ first.",
                "Run the checks with `tox <http://tox.readthedocs.io/en/latest/>`_ first.",
            ),
            // A link added on words already there, or on a path to itself.
            (
                "Commits follow the Angular commit convention",
                "Commits follow the [Angular commit convention](https://github.com/angular/angular.js/blob/master/CONTRIBUTING.md)",
            ),
            (
                "The core code is all in lib/loglevel.js, the only file to touch.",
                "The core code is all in [`lib/loglevel.js`](./lib/loglevel.js), the only file to touch.",
            ),
        ] {
            assert!(!changed_value(old, new), "{old:?} -> {new:?}");
            assert!(!updates(old, new), "{old:?} -> {new:?}");
            assert!(same_values(old, new), "{old:?} -> {new:?}");
        }
        // Word for word the same but for a link put on some of its words: one statement,
        // however many words the link's target adds (the write path's similarity reads them).
        assert!(two_statements(
            "Commits follow the Angular commit convention",
            "Commits follow the [Angular commit convention](https://github.com/angular/angular.js/blob/master/CONTRIBUTING.md#-git-commit-guidelines)",
        )
        .is_none());
        assert!(two_statements(
            "Commits follow the Angular commit convention",
            "Commits follow the [Angular commit convention](https://example.com/a) strictly",
        )
        .is_some());
    }

    #[test]
    fn an_environment_is_a_value_but_in_the_subject() {
        for (old, new) in [
            ("Deploy to staging first", "Deploy to production first"),
            (
                "Run the smoke tests against staging",
                "Run the smoke tests against the sandbox",
            ),
            (
                "Feature flags default to off in prod",
                "Feature flags default to off in QA",
            ),
        ] {
            assert!(updates(old, new), "{old} → {new}");
        }
        // In the subject it names what the statement is about: two facts.
        assert!(!updates(
            "The staging database is Postgres 15",
            "The production database was upgraded to Postgres 16",
        ));
        // Said of the same environment, reworded: a duplicate's words.
        assert!(!changed_value(
            "Deploy to staging first",
            "Always deploy to staging first"
        ));
    }

    #[test]
    fn a_link_to_another_page_is_a_changed_value_whatever_its_text() {
        let old = "If you're not sure what to work on, try checking the [good first issue \
                   label](https://github.com/japaric/criterion.rs/issues?q=label%3A%22good+first+issue%22)";
        let new = "If you're not sure what to work on, try checking the [Beginner \
                   label](https://github.com/bheisler/criterion.rs/issues?q=label%3ABeginner)";
        assert!(links_replaced(old, new));
        assert!(updates(old, new));
        // The same page with its text reworded, or a link alone: not this rule.
        assert!(!links_replaced(
            "See the [guide to tests](https://example.com/tests) first",
            "See the [testing guide](https://example.com/tests/) first",
        ));
        assert!(!links_replaced(
            "[Docs](https://example.com/a)",
            "[Docs](https://example.com/b)"
        ));
        // Other words changed beside the link: the usual rules read it.
        assert!(!links_replaced(
            "Ask on [Gitter](https://gitter.im/x) before a large change",
            "Ask on [Discord](https://discord.gg/x) before any change",
        ));
    }

    #[test]
    fn a_program_named_in_lower_case_is_a_value() {
        for (old, new) in [
            (
                "Run npm test before making a pull request.",
                "Run pnpm test before making a pull request.",
            ),
            ("run all of the mocha tests", "run all of the jest tests"),
            ("Format code with black.", "Format code with ruff format."),
        ] {
            assert!(changed_value(old, new), "{old:?} -> {new:?}");
            assert!(updates(old, new), "{old:?} -> {new:?}");
        }
        // The program kept, the sentence reworded.
        assert!(!updates(
            "Run npm test before making a pull request.",
            "Before you open a pull request, run npm test.",
        ));
    }

    #[test]
    fn flags_added_with_their_arguments_are_an_update() {
        assert!(changed_value(
            "git commit; git push",
            "git commit -a -m \"Update README\"; git push",
        ));
        assert!(changed_value("Run pytest", "Run pytest -k test_unit"));
    }

    #[test]
    fn an_entry_led_by_a_bold_label_is_one_entry() {
        for (old, new) in [
            (
                "**Failure modes:** If the child never acks within 1 s, the runner kills it.",
                "**Failure modes:** If the child never acks within 1 s, `signal()` returns \
                 `False` and the engine treats the termination as a crash.",
            ),
            (
                "**Changelog** — Add a new entry in `docs/versionhistory.rst`.",
                "**Changelog** — Add a news fragment in `changelog.d/`.",
            ),
            (
                "[prefect runner] **Extending intents:** The only intent today is cancel.",
                "[prefect runner] **Extending intents:** Update the shared map together.",
            ),
        ] {
            assert!(same_entry(old, new), "{old:?} -> {new:?}");
            assert!(updates(old, new), "{old:?} -> {new:?}");
        }
        for (old, new) in [
            // Another label, a note's label, a sentence in bold, no label at all.
            (
                "**Failure modes:** it crashes.",
                "**Retry modes:** it retries.",
            ),
            (
                "**Note:** run the tests first",
                "**Note:** the docs build on push",
            ),
            (
                "**Warning** — never force-push",
                "**Warning** — keep the lockfile",
            ),
            (
                "**Never commit secrets.** Use the vault.",
                "**Never commit secrets.** Rotate them.",
            ),
            (
                "**Tests must pass** before merging",
                "**Tests must pass** on every branch",
            ),
            (
                "[a] **Failure modes:** it crashes.",
                "[b] **Failure modes:** it retries.",
            ),
        ] {
            assert!(!same_entry(old, new), "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn a_whole_command_changed_is_changed() {
        for (old, new) in [
            ("$ git checkout -b my-fix", "$ git switch -c my-fix"),
            ("$ pip install -U blue", "$ pip install -U ruff"),
            ("prek run --last-commit", "just hooks run --last-commit"),
            (
                "prek run --directory src/zarr",
                "just hooks run --directory src/zarr",
            ),
            ("$ python -m pytest", "$ python -Im pytest"),
            ("tox run -e py39", "tox run -e py310"),
            // A statement that is one code span.
            ("**`npm posttest`**", "**`npm run posttest`**"),
            // A script run by its path (zerocopy's AGENTS.md).
            (
                "`./cargo.sh +<toolchain> <command> [args]`",
                "`yes | ./cargo.sh +<toolchain> <command> [args]`",
            ),
            ("$ ./gradlew build", "$ ./gradlew build --scan"),
            (
                "`./cargo.sh +stable run --manifest-path tools/generate-readme/Cargo.toml > README.md`",
                "`(cd .. && cargo -q run --manifest-path tools/Cargo.toml -p generate-readme) > README.md`",
            ),
            // The same task run by another program.
            ("hatch --env docs run serve", "just docs-serve"),
            (
                "hatch env run --env test.py3.12-optional run-coverage-html",
                "just coverage-html",
            ),
            (
                "$ pdm run pytest tests.test_unstructure",
                "$ just test tests/test_unstructure.py",
            ),
        ] {
            assert!(changed_value(old, new), "{old:?} -> {new:?}");
            assert!(updates(old, new), "{old:?} -> {new:?}");
        }
        for (old, new) in [
            // Two steps, not one changed: little in common.
            ("cargo build", "cargo test --all"),
            (
                "$ pdm install -d -G :all",
                "$ uv sync --all-groups --all-extras",
            ),
            // The same command, its prompt or its comment changed.
            ("$ git merge upstream/main", "git merge upstream/main"),
            (
                "uv sync  # install dependencies",
                "uv sync  # Install dependencies",
            ),
            // A sentence in lower case is no command.
            ("always squash merge", "never rebase main"),
            // Two steps: another target.
            ("hatch --env docs run serve", "just docs-build"),
            ("just docs-build --watch", "just docs-serve"),
            ("cargo test --all", "cargo build"),
        ] {
            assert!(!changed_value(old, new), "{old:?} -> {new:?}");
        }
        assert_eq!(
            whole_command("just docs-serve --open"),
            Some("just docs-serve --open")
        );
        assert_eq!(whole_command("$ uv sync  # deps"), Some("uv sync"));
        assert_eq!(whole_command("run the tests"), None);
        assert_eq!(whole_command("never use --no-verify"), None);
        assert_eq!(whole_command("tests take 10 minutes"), None);
        assert_eq!(whole_command("[Lint with] cargo clippy"), None);
    }

    #[test]
    fn a_value_said_to_be_on_its_way_out_is_changed() {
        let old = "**Config format**: In addition to `crush.json`, Crush supports `crushrc`, a \
                   Bash script that defines the config.";
        let new = "**Config format**: Crush's primary config format is `crushrc`, a Bash script \
                   that defines the config. `crush.json` is still supported but is deprecated.";
        assert!(says_changed(old, new) && updates(old, new));
        // Deprecated in both: nothing new said of it.
        let old = "`crush.json` is deprecated; use `crushrc`, a Bash script.";
        assert!(!says_changed(
            old,
            "Use `crushrc`, a Bash script: `crush.json` is deprecated."
        ));
        // Another rule of the same project, whose name stands beside "deprecated".
        assert!(!says_changed(
            "Never use the `any` type in n8n code; avoid `as` casts in favor of type guards.",
            "Don't use the deprecated `ApplicationError` class in n8n code; throw `UserError` \
             instead.",
        ));
        // Something else deprecated, far from the value both name.
        assert!(!says_changed(
            "Configure the server in `server.toml` and keep secrets out of the repository.",
            "Configure the server in `server.toml` and keep secrets out of the repository; the \
             old environment-only setup of the whole cluster is deprecated.",
        ));
    }

    #[test]
    fn a_statement_condensed_around_a_value_replaced_is_changed() {
        let old = "When you're ready to submit your changes, send your pull request \
                   specifically to the **dev** branch.";
        let new = "Send your pull request to the main branch.";
        assert!(changed_value(old, new) && updates(old, new));
        // Expanded around it, the same.
        assert!(changed_value(new, old));
        // Condensed, no value replaced: the same statement.
        assert!(!changed_value(
            old,
            "Send your pull request to the **dev** branch."
        ));
        // A plain word added beside the value: another rule, not this one condensed.
        assert!(!changed_value(
            old,
            "Send your documentation pull request to the main branch."
        ));
        // Too little kept: "Run all checks: `make` (format, lint, typecheck, test)" and "Run
        // tests: `make test`" are two commands for two jobs.
        assert!(!changed_value(
            "Run all checks: `make` (format, lint, typecheck, test with coverage)",
            "Run tests: `make test`",
        ));
    }

    #[test]
    fn a_value_added_to_a_list_beside_its_conjunction_is_changed() {
        assert!(changed_value(
            "Your environment must be based on CPython 3.10, 3.11, 3.12 or 3.13:",
            "Your environment must be based on CPython 3.10, 3.11, 3.12, 3.13, or 3.14:",
        ));
        assert!(changed_value(
            "Supported: Python 3.11 and 3.12",
            "Supported: Python 3.11, 3.12 and 3.13",
        ));
        // A clause after a comma, though it ends on what something is: no list's item.
        assert!(!changed_value(
            "Keep each pull request to one change so that review stays quick",
            "Keep each pull request to one change so that review stays quick, as reviewers are few",
        ));
        // A value mentioned in passing, in no list: the same statement.
        assert!(!changed_value(
            "ruff is written in Rust (1.63.0).",
            "ruff is written in Rust."
        ));
    }

    #[test]
    fn a_clause_that_names_a_new_value_broadens_the_rule() {
        let old = "FastMCP uses `inline-snapshot` for testing complex data structures; on \
                   first run pytest will auto-populate the expected value.";
        let new = "FastMCP uses `inline-snapshot` for testing complex data structures; on \
                   first run pytest will auto-populate the expected value when running \
                   `pytest --inline-snapshot=create`.";
        assert!(extends(old, new));
        assert!(updates(old, new));
        // The other way round: a clause dropped condenses it.
        assert!(!extends(new, old));
        let old = "Commands should have a `--json` flag or equivalent for machine-readable output.";
        for new in [
            // A reason, a link, a word of it put in a code span: no new value.
            "Commands should have a `--json` flag or equivalent for machine-readable output, \
             since agents read it.",
            "Commands should have a `--json` flag or equivalent for machine-readable output \
             ([why](docs/json.md)).",
            "Commands should have a `--json` flag or equivalent for `machine-readable` output.",
        ] {
            assert!(!extends(old, new), "{new:?}");
        }
        assert!(extends(
            old,
            "Commands should have a `--json` flag or equivalent for machine-readable output; \
             diagnostic `print()` calls must be suppressed then.",
        ));
        // An exception made: the rule narrowed.
        let old = "Import order is managed by Ruff; always add `from __future__ import \
                   annotations` as the first import.";
        for new in [
            "Import order is managed by Ruff; always add `from __future__ import annotations` \
             as the first import (except in documentation snippets, see below).",
            "Import order is managed by Ruff; always add `from __future__ import annotations` \
             as the first import, unless the module is a stub.",
            "Import order is managed by Ruff; always add `from __future__ import annotations` \
             as the first import, but only if the module has annotations.",
        ] {
            assert!(extends(old, new), "{new:?}");
            assert!(updates(old, new), "{new:?}");
        }
    }

    #[test]
    fn a_passage_rewritten_in_part_that_names_new_code_extends_it() {
        let old = "These will be removed once internal callers are migrated. Direct \
                   ProcessWorker flow runs already use `FlowRunExecutorContext` with \
                   `EngineCommandStarter`; only its ad hoc bundle path still calls the \
                   deprecated `Runner.execute_bundle()`.";
        let new = "These will be removed once internal callers are migrated. Direct \
                   ProcessWorker flow runs already use `FlowRunExecutorContext`; generated \
                   commands use `WorkspaceResolvingEngineCommandStarter`. Only the ad hoc \
                   bundle path still calls the deprecated `Runner.execute_bundle()`.";
        assert!(same_passage(old, new));
        assert!(extends(old, new));
        // What it pointed at, named; a typo fixed in its code: nothing new.
        let old = "If code outside of this directory is modified, use `zig build \
                   -Demit-macos-app=false` before building the macOS app to update the \
                   underlying Ghostty library.";
        let named = "If code outside of `macos/` directory is modified, use `zig build \
                     -Demit-macos-app=false` before building the macOS app to update the \
                     underlying Ghostty library.";
        assert!(same_passage(old, named) && !extends(old, named));
        let old = "To build the macOS app you need Xcode and `podmand` installed; the build \
                   script checks both before it starts and stops with a message otherwise.";
        let fixed = "To build the macOS app you need Xcode and `podman` installed; the build \
                     script checks both tools before it starts and stops with an error otherwise.";
        assert!(same_passage(old, fixed) && !extends(old, fixed));
    }

    #[test]
    fn a_statement_rewritten_in_part_that_names_a_new_value_extends_it() {
        let old = "To run the docs server, open your terminal and navigate to the root \
                   directory of the project.";
        let new = "To run the docs server, open your terminal and navigate to the `docs` \
                   subdirectory of the project. The `docusaurus.config.js` file there is a sign \
                   you are in the right place.";
        assert!(!same_passage(old, new) && extends(old, new) && updates(old, new));
        // A value replaced, the sentence around it reworded.
        let old = "As long as you run our full Nox suite before committing, or install our \
                   pre-commit hooks, you won't have to spend any time on formatting your code.";
        let new = "As long as you run our full `tox` suite before committing, or install our \
                   pre-commit hooks (ideally both), you won't have to spend time formatting \
                   your code at all.";
        assert!(extends(old, new));
        // Reworded, no value named anew: the same statement.
        let old = "Make sure to read the issue instructions carefully. Not all issues have \
                   instructions, though, so if something isn't clear, ask for clarification!";
        let new = "Read any issue instructions carefully. Feel free to ask for clarification if \
                   any details are missing.";
        assert!(!extends(old, new));
        // A typo fixed in a value, the rest reworded: nothing new.
        let old = "Ensure a container engine such as `docker` or `podmand` is available before \
                   you start the sandboxed test run.";
        let new = "Ensure that a container engine (`docker` or `podman`) is available before \
                   starting the sandboxed test run.";
        assert!(!extends(old, new));
        // Too little kept to be one statement: another rule that names another value.
        assert!(!extends(
            "Build all fuzz targets with `zig build` before a fuzzing run",
            "Run a specific fuzzer with `zig build run-parser` during a fuzzing run",
        ));
        // Chat: replies keep each other's words and name other people and numbers.
        assert!(!extends(
            "John: Sounds like you had a great time at the lake! What inspired you to go on \
             the hike with Max?",
            "Maria: Wow, John, sounds like you and Max had a great time at the lake! Camping \
             with 2 pets can be so soul-nourishing, right?",
        ));
        // A word turned into its complement: two rules for two cases.
        assert!(!extends(
            "If only Rust code changed in the crates directory, run `just test` before you push",
            "If only non-Rust code changed in the crates directory, run `just lint` before you push",
        ));
    }

    #[test]
    fn a_long_passage_rewritten_in_part_is_the_same_passage() {
        let old = "Direct `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with \
                   `EngineCommandStarter` and `propose_submitting=False` because `BaseWorker` \
                   already proposed Submitting. The ad hoc bundle path still uses deprecated \
                   `Runner.execute_bundle()` and remains a migration gap.";
        let new = "Direct `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with \
                   `EngineCommandStarter` and `propose_submitting=False` because `BaseWorker` \
                   already proposed Submitting. Ad hoc bundle submissions open their own \
                   `FlowRunExecutorContext` with `BundleExecutionStarter`.";
        assert!(same_passage(old, new));
        assert!(same_passage(new, old));
        assert!(updates(old, new));
        assert!(!same_passage(old, old));
        // Short statements, however alike, are read word by word.
        assert!(!same_passage(
            "Ask before adding a new dependency.",
            "Ask before adding a new top-level directory."
        ));
        // Two rules that share an opening: less than three in five of their words.
        assert!(!same_passage(
            "PR titles feed directly into the release changelog — wrap code identifiers \
             (class names, keyword arguments, `module.paths`, CLI flags) in backticks.",
            "PR titles feed directly into the release changelog. Write one as an imperative \
             sentence naming the change — no `fix:` or `docs:` prefixes, no trailing period.",
        ));
        // Two rules for two cases.
        assert!(!same_passage(
            "If only non-Rust code was changed in deno, run `tools/lint.js --js` and fix any \
             lint errors before committing the change.",
            "If Rust code was changed in deno, run `tools/lint.js` and fix any lint errors \
             before committing the change.",
        ));
        // Chat turns, however alike: no code.
        assert!(!same_passage(
            "Thanks, Nate! Your support means a lot. I'll make sure to keep you updated on the \
             script and the pitch. Anything new on your end?",
            "Thanks, Nate! Your support is greatly appreciated. I'll make sure to keep you \
             updated on the script and the pitch.",
        ));
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
            words in prop::collection::vec("[a-z]{4,9}", 1..12),
            at in any::<prop::sample::Index>(),
            kind in 0..3usize,
            x in 1u32..5000,
            y in 1u32..5000,
        ) {
            // However short the statement, when a word of it is kept ("Use Node 18").
            prop_assume!(x != y && words.iter().any(|w| is_content(w)));
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
        fn a_change_said_of_nothing_changed_is_no_update(
            words in prop::collection::vec("[a-z]{4,9}", 2..12),
            value in "[0-9]{1,4}|v[0-9]\\.[0-9]|`[a-z]{2,6} --[a-z]{2,6}`",
            at in any::<prop::sample::Index>(),
            change in prop::sample::select(CHANGE_WORDS),
        ) {
            // "Deploys use pnpm 8" -> "Deploys now use pnpm 8": every word and value kept.
            let mut old = words;
            old.insert(at.index(old.len() + 1), value);
            let mut new = old.clone();
            new.insert(at.index(new.len() + 1), change.to_string());
            prop_assert!(!says_changed(&old.join(" "), &new.join(" ")), "{:?} -> {:?}", old, new);
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
            let v = at.index(words.len() + 1);
            old.insert(v, value);
            let mut new = old.clone();
            // A plain word replaced, dropped, or added; the value kept. Not a word in a
            // tool's place ("with mypy" -> "with pyright" changes the tool), nor a place's
            // name ("the dev branch").
            let i = at.index(words.len());
            let i = if i == v { (i + 1) % new.len() } else { i };
            prop_assume!(i == 0 || !TOOL_PLACES.contains(&new[i - 1].as_str()));
            prop_assume!(new.get(i + 1).is_none_or(|w| !PLACES.contains(&w.as_str())));
            // Nor a number word or a stage, which are values ("0 aaaa" -> "0 zero": a number
            // named), in the word added or in the one it replaces or drops.
            let is_value_word = |w: &str| is_number(w) || STAGES.contains(&w);
            prop_assume!(!is_value_word(&word));
            prop_assume!(how == 2 || !is_value_word(&new[i]));
            match how {
                0 => new[i] = word,
                1 => { new.remove(i); }
                _ => new.insert(i, word),
            }
            prop_assert!(!changed_value(&old.join(" "), &new.join(" ")), "{:?} -> {:?}", old, new);
        }

        #[test]
        fn a_word_hyphenated_is_a_duplicate_never_an_update(
            words in prop::collection::vec("[a-z]{4,9}", 3..10),
            value in "[0-9]{1,4}|v[0-9]\\.[0-9]|`[a-z]{2,6} --[a-z]{2,6}`",
            at in any::<prop::sample::Index>(),
            cut in any::<prop::sample::Index>(),
        ) {
            // "Don't hardcode credentials" -> "Don't hard-code credentials": one plain word
            // written with a hyphen inside, the value kept. Words repeated ("aaaa aaaa") leave
            // the diff free to pair them either way: each word once.
            prop_assume!(words.iter().collect::<BTreeSet<_>>().len() == words.len());
            let mut old = words.clone();
            let v = at.index(words.len() + 1);
            old.insert(v, value);
            let i = if at.index(words.len()) == v { (v + 1) % old.len() } else { at.index(words.len()) };
            prop_assume!(old[i].chars().all(|c| c.is_ascii_lowercase()));
            let k = 1 + cut.index(old[i].len() - 1);
            let mut new = old.clone();
            new[i] = format!("{}-{}", &old[i][..k], &old[i][k..]);
            let (old, new) = (old.join(" "), new.join(" "));
            prop_assert!(rewords(&old, &new) && rewords(&new, &old), "{:?} -> {:?}", old, new);
            prop_assert!(!updates(&old, &new) && !updates(&new, &old), "{:?} -> {:?}", old, new);
        }

        #[test]
        fn a_long_passage_with_a_word_changed_is_the_same_passage_and_another_is_not(
            words in prop::collection::vec("[a-z]{5,9}", 15..40),
            at in any::<prop::sample::Index>(),
            word in "[0-9]{2,4}",
            others in prop::collection::vec("[A-Z][a-z]{3,9}", 15..40),
            code in "`[a-z_]{3,9}\\(\\)`",
        ) {
            // A passage about code: it names a function.
            let passage = |words: &[String]| format!("{} {code}", words.join(" "));
            let old = passage(&words);
            let mut changed = words.clone();
            changed[at.index(words.len())] = word;
            prop_assert!(same_passage(&old, &passage(&changed)));
            // Words of which none is the other's: another passage.
            prop_assert!(!same_passage(&old, &passage(&others)));
            prop_assert!(!same_passage(&old, &old));
            // The same words naming no code: a chat turn's, no passage of a project's notes.
            prop_assert!(!same_passage(&words.join(" "), &changed.join(" ")));
        }

        #[test]
        fn a_statement_with_a_clause_added_anywhere_holds_the_other(
            words in prop::collection::vec("[a-zA-Z]{1,9}", 8..20),
            clause in prop::collection::vec("[a-z]{1,9}|,|\\(|\\)", 1..8),
            at in any::<prop::sample::Index>(),
            other in "[a-z]{10,12}",
        ) {
            let i = at.index(words.len() + 1);
            let mut longer = words.clone();
            longer.splice(i..i, clause);
            let (short, long) = (words.join(" "), longer.join(" "));
            prop_assert!(holds_the_other(&short, &long), "{short:?} / {long:?}");
            prop_assert!(holds_the_other(&long, &short), "{long:?} / {short:?}");
            // A word of it replaced by one neither holds: neither holds the other.
            let mut changed = words.clone();
            changed[at.index(words.len())] = other;
            prop_assert!(!holds_the_other(&short, &changed.join(" ")));
        }
    }
}
