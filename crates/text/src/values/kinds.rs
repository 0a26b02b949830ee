//! What a word of a statement is to the comparisons: a value, a name, a tool or a unit, read
//! from the word and the words around it, and the word lists that tell them.

use super::tokens::{after, before, before_at, core, is_content, is_value_token, listed};

/// Verbs that say the word before them is a subject
/// ([`subject_replaced`](super::subject_replaced)). Sorted.
pub(super) const AUXILIARIES: &[&str] = &[
    "are", "can", "could", "did", "does", "had", "has", "have", "is", "may", "might", "must",
    "shall", "should", "was", "were", "will", "would",
];

/// A word that says the words before it are a subject: an auxiliary (`is`, `has`, `can`,
/// …) or a lower-case word ending in `s` ("owns", "updates", "listens").
pub(super) fn is_verb(word: &str) -> bool {
    listed(AUXILIARIES, word)
        || (word.len() > 3
            && word.ends_with('s')
            && !word.ends_with("ss")
            && word.chars().all(|c| c.is_ascii_lowercase()))
}

/// Words that start a subject. Sorted.
pub(super) const DETERMINERS: &[&str] = &[
    "a", "all", "an", "each", "every", "its", "our", "the", "this", "your",
];

/// What a changed word is to [`changed_value`](super::changed_value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A value as [`values`](super::values) reads one (or a code span), a number word, how often
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

/// A content word of a statement, and what it is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Word<'a> {
    pub(super) text: &'a str,
    pub(super) kind: Kind,
}

/// How many of `words` are values or names.
pub(super) fn named(words: &[Word]) -> usize {
    words.iter().filter(|w| w.kind != Kind::Plain).count()
}

/// The content words of `tokens[range]` (not punctuation, not function words), each with
/// its [`Kind`].
pub(super) fn words<'a>(tokens: &[&'a str], range: std::ops::Range<usize>) -> Vec<Word<'a>> {
    range
        .filter(|&i| is_content(tokens[i]))
        .map(|i| Word {
            text: tokens[i],
            kind: kind(tokens, i),
        })
        .collect()
}

/// What `tokens[i]` is to [`changed_value`](super::changed_value).
pub(super) fn kind(tokens: &[&str], i: usize) -> Kind {
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
pub(super) fn in_subject(tokens: &[&str], i: usize) -> bool {
    tokens.first().is_some_and(|w| listed(DETERMINERS, w))
        && !tokens[..i].iter().any(|t| is_verb(t))
}

/// Whether `tokens[i]` is a word of a quoted string ("Use the \"Bug report\" template"),
/// which is a value as written, not words to reword: an odd number of straight double quotes
/// before it and one after it, or an opening curly quote before it with no closing one
/// between.
pub(super) fn quoted(tokens: &[&str], i: usize) -> bool {
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
pub(super) const KIND_WORDS: &[&str] = &[
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
pub(super) const UNITS: &[&str] = &[
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
pub(super) fn is_number(token: &str) -> bool {
    let word = core(token);
    word.chars().next().is_some_and(|c| c.is_ascii_digit())
        || NUMBER_WORDS.contains(&word.to_lowercase().as_str())
}

/// Number words: "three phases" to "four phases" changes a value.
pub(super) const NUMBER_WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];

/// Where a feature or an interface is in its life: "`foo()` is deprecated" → "`foo()` was
/// removed" changes a value, as a number does. Sorted.
pub(super) const STAGES: &[&str] = &[
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
pub(super) const RETIRING: &[&str] = &["deprecated", "obsolete", "removed", "unsupported"];

/// A log's level: "The default log level is info" → "debug" changes a value, as a number
/// does. Not `error` nor `warning`, which are words of rules too ("fix every warning").
/// Sorted.
pub(super) const LOG_LEVELS: &[&str] = &["debug", "info", "trace", "verbose", "warn"];

/// Where software is deployed or run: "Deploy to staging first" → "to production first"
/// changes a value, as a host's name does; in the subject it names what the statement is
/// about ("The staging database is Postgres 15" and "The production database …": two
/// databases, [`in_subject`]). Not `dev`, `local` nor `test`, which are words of rules too
/// ("the dev branch", "a local variable", "the test suite"). Sorted.
pub(super) const ENVIRONMENTS: &[&str] = &[
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
pub(super) const PROGRAMS: &[&str] = &[
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
pub(super) const FREQUENCIES: &[&str] = &[
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
pub(super) fn is_name(tokens: &[&str], i: usize) -> bool {
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
pub(super) const TOOL_PLACES: &[&str] = &["use", "uses", "using", "via", "with"];

/// Words that end the name of a tool after a [`TOOL_PLACES`] word, beside function words
/// and punctuation: "with mypy before pushing". Sorted.
pub(super) const AFTER_TOOL: &[&str] = &[
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
pub(super) fn in_tool_place(tokens: &[&str], i: usize) -> bool {
    let word = |t: &str| {
        core(t).chars().all(char::is_alphanumeric) && is_content(t) && !listed(AFTER_TOOL, t)
    };
    // Punctuation at the end of a word ("black.") ends the name with it.
    let ends = tokens[i].ends_with(|c: char| !c.is_alphanumeric())
        || tokens.get(i + 1).is_none_or(|t| !word(t));
    before(tokens, i).is_some_and(|t| listed(TOOL_PLACES, t)) && word(tokens[i]) && ends
}

/// Words for a named place that the word before them names: "the **dev** branch", "the
/// **docs** folder", "the **staging** environment". Sorted.
pub(super) const PLACES: &[&str] = &[
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
pub(super) fn names_a_place(tokens: &[&str], i: usize) -> bool {
    before(tokens, i).is_some_and(|t| !is_content(t) && t.chars().all(char::is_alphabetic))
        && is_content(tokens[i])
        && core(tokens[i]).chars().all(char::is_alphanumeric)
        && after(tokens, i).is_some_and(|t| listed(PLACES, t))
}

/// Words after which the last word of a statement is what it says its subject is or goes
/// to: "The default branch is master", "Logs go to stdout". Sorted.
pub(super) const COMPLEMENT_PLACES: &[&str] = &["are", "is", "to"];

/// Whether `tokens[i]` is the statement's last word, right after a [`COMPLEMENT_PLACES`]
/// word (or after it and an article): the value of what the statement says ("The default
/// branch is master" → "main"; "Logs go to stdout" → "stderr").
pub(super) fn ends_as_complement(tokens: &[&str], i: usize) -> bool {
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
pub(super) fn in_units(tokens: &[&str], i: usize) -> bool {
    let unit = core(tokens[i]).to_lowercase();
    unit.len() > 1
        && listed(UNITS, &unit)
        && before(tokens, i).is_some_and(|t| t.eq_ignore_ascii_case("in"))
}
