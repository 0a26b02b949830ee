//! How two words relate: a typo or a hyphen apart, opposites, a word that orders, a
//! complement.

use super::tokens::{core, is_content, listed};
use crate::Stemmer;

/// Words that reverse what a rule prescribes when one takes the other's place, as a negation
/// does: `Enable X` and `Disable X`, `X is required` and `X is optional`, `before` and `after`
/// the tests, and the choices of a convention (`absolute` and `relative` imports, `single` and
/// `double` quotes, `ascending` and `descending` order, a `squash` or a `rebase` merge, `tabs`
/// or `spaces`, `concise` or `verbose`). Not words that pick another subject (`dev` and
/// `prod`, `client` and `server`, `public` and `private`): two rules about two things are both
/// true. Each pair in order, the pairs sorted, for [`opposites`]' binary search.
pub(super) const OPPOSITES: &[(&str, &str)] = &[
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
pub(super) const ORDER_WORDS: &[&str] = &[
    "above", "after", "before", "below", "from", "instead", "into", "over", "than", "versus", "vs",
];

/// Whether `b` is `a` with the words next to an [`ORDER_WORDS`] word swapped: the content
/// words nearest before and after it (past function words: "instead of") trade places, for
/// an order word each statement has once.
pub(super) fn swapped_around(a: &[&str], b: &[&str]) -> bool {
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
pub(super) fn is_order_word(token: &str) -> bool {
    listed(ORDER_WORDS, token)
}

/// `a` and `b` set one name to two values: `KEY=1` and `KEY=2`, `--jobs=4` and `--jobs=8`.
pub(super) fn same_setting(a: &str, b: &str) -> bool {
    fn name(t: &str) -> Option<&str> {
        let (name, _) = core(t).split_once('=')?;
        name.chars().any(char::is_alphanumeric).then_some(name)
    }
    name(a).is_some() && name(a) == name(b) && core(a) != core(b)
}

/// `word` reverses a rule when it is added or dropped: a negation, or `always`.
pub(super) fn reverses(word: &str) -> bool {
    crate::words::is_negation(word)
        || ["always", "anymore", "longer", "still"]
            .iter()
            .any(|w| word.eq_ignore_ascii_case(w))
}

/// `word` is one of a pair of [`OPPOSITES`], in any case.
pub(super) fn is_opposite(word: &str) -> bool {
    let word = word.to_lowercase();
    OPPOSITES.iter().any(|&(a, b)| a == word || b == word)
}

/// `a` and `b` are opposites ([`OPPOSITES`]), in any case, either way round.
pub(super) fn opposites(a: &str, b: &str) -> bool {
    let (a, b) = (core(a).to_lowercase(), core(b).to_lowercase());
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    OPPOSITES.binary_search(&(a.as_str(), b.as_str())).is_ok()
}

/// `a` and `b` are a word and its complement: `non-X` and `X`, either way round.
pub(super) fn complements(a: &str, b: &str) -> bool {
    let (a, b) = (core(a).to_lowercase(), core(b).to_lowercase());
    let negated = |x: &str, y: &str| x.strip_prefix("non-").is_some_and(|rest| rest == y);
    negated(&a, &b) || negated(&b, &a)
}

/// `a` and `b` are one text with typos fixed: word by word (a code span's words too), each
/// the same or a typo fixed ([`is_typo_word`], as in a `value` when they are one). A changed
/// value is no typo: a version one digit apart, a path one letter apart (`agents.md`,
/// `agent.md`), a short word (`doc`, `docs`).
pub(super) fn is_typo(a: &str, b: &str, value: bool, stemmer: &Stemmer) -> bool {
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
/// span: prose, whatever [`is_value`](super::tokens::is_value) makes of its hyphen.
pub(super) fn hyphenated_word(token: &str) -> bool {
    let word = core(token);
    !token.starts_with('`')
        && word.contains('-')
        && word
            .split('-')
            .all(|part| !part.is_empty() && part.chars().all(char::is_alphabetic))
}

/// `a` and `b` are one word written with a hyphen and without, or with it elsewhere:
/// `hard-code` and `hardcode`, `e-mail` and `email`, `Re-run` and `rerun`.
pub(super) fn hyphenated(a: &str, b: &str) -> bool {
    let bare = |w: &str| w.replace('-', "").to_lowercase();
    (a.contains('-') || b.contains('-')) && bare(a) == bare(b) && !bare(a).is_empty()
}

/// `b` is the word `a` with a typo fixed, or the other way round. Both are words of letters
/// alone. A plain word of four letters or more may be replaced by another form of itself
/// (the same stem) or by one within a fifth of its letters; a word of a `value` (a command's,
/// a tool's name) only by itself with one letter dropped, added, or two next to each other
/// swapped, its case as written, and only from five letters (`goftumpt`, `gofumpt`; but
/// `eslint` and `tslint` are two tools, and `devtoolsLogs` and `DevtoolsLog` two names).
pub(super) fn is_typo_word(a: &str, b: &str, value: bool, stemmer: &Stemmer) -> bool {
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
pub(super) fn one_letter_apart(a: &[char], b: &[char]) -> bool {
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
