//! How a statement is cut: its tokens, the keys two statements are compared by, its sentences
//! and content words, and the pages its links name.

use super::kinds::NUMBER_WORDS;

/// What is cut from both ends of a word before it is read as a value: quotes, brackets,
/// punctuation after it, and Markdown emphasis.
pub(super) const WRAPPING: &[char] = &[
    '`', '\'', '"', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '!', '?', '*', '_',
];

/// `text` with each reStructuredText link (`` `text <https://…>`_ ``, or `__`) written as a
/// Markdown link (`[text](https://…)`), as a literal (``` ``x`` ```) reads as a code span: a
/// file moved from one to the other says the same, and its links name their pages.
pub(super) fn markdown_links(text: &str) -> String {
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

/// The function words of `tokens`, lower case ([`changed_value`](super::changed_value)).
pub(super) fn function_words(tokens: &[&str]) -> Vec<String> {
    tokens
        .iter()
        .filter(|t| !is_content(t) && t.chars().any(char::is_alphabetic))
        .map(|t| t.to_lowercase())
        .collect()
}

/// Takes out of `a` and `b` each element of `a` that `same` pairs with one of `b`, each of
/// `b` paired once: what is left is what one has and the other has not.
pub(super) fn cancel_common<T>(a: &mut Vec<T>, b: &mut Vec<T>, same: impl Fn(&T, &T) -> bool) {
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

/// The [`keys`] of `text`'s words, without punctuation.
pub(super) fn alphanumeric_keys(text: &str) -> Vec<String> {
    keys(&tokens(text))
        .into_iter()
        .filter(|k| k.chars().any(char::is_alphanumeric))
        .collect()
}

/// How many content words `text` has (not function words, not punctuation).
pub(super) fn content_words(text: &str) -> usize {
    tokens(text).into_iter().filter(|t| is_content(t)).count()
}

/// The sentences of `text`: cut after `.`, `!` or `?` where white space and a capital letter,
/// a code span or a version follow ("… passing. v1.0.0 is the first release"), each trimmed.
pub(super) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, w) in chars.windows(3).enumerate() {
        let [(_, end), (_, space), (next_at, next)] = [w[0], w[1], w[2]];
        let version = || {
            let after = chars.get(i + 3).map(|&(_, c)| c);
            next.is_ascii_digit() || (next == 'v' && after.is_some_and(|c| c.is_ascii_digit()))
        };
        if matches!(end, '.' | '!' | '?')
            && space.is_whitespace()
            && (next.is_uppercase() || next == '`' || version())
        {
            out.push(text[start..next_at].trim());
            start = next_at;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// The token before `tokens[i]`, past emphasis (`*`, a token of its own): "the **dev**
/// branch" names a place as "the dev branch" does.
pub(super) fn before<'a>(tokens: &[&'a str], i: usize) -> Option<&'a str> {
    before_at(tokens, i).map(|j| tokens[j])
}

/// The index of the token [`before`] `tokens[i]`.
pub(super) fn before_at(tokens: &[&str], i: usize) -> Option<usize> {
    tokens[..i].iter().rposition(|t| *t != "*")
}

/// The token after `tokens[i]`, past emphasis ([`before`]).
pub(super) fn after<'a>(tokens: &[&'a str], i: usize) -> Option<&'a str> {
    tokens.get(i + 1..)?.iter().find(|t| **t != "*").copied()
}

/// `token`, without what wraps it and in lower case, is one of the sorted `words`.
pub(super) fn listed(words: &[&str], token: &str) -> bool {
    words
        .binary_search(&core(token).to_lowercase().as_str())
        .is_ok()
}

/// A flag or a toolchain: `--all`, `-w`, `+nightly`.
pub(super) fn is_flag(token: &str) -> bool {
    let word = core(token);
    word.len() > 1 && (word.starts_with('-') || word.starts_with('+'))
}

/// `word` without what wraps it: quotes, brackets, backticks, emphasis, and punctuation
/// after it.
pub(super) fn core(word: &str) -> &str {
    let core = word
        .trim_matches(WRAPPING)
        .trim_end_matches(|c: char| WRAPPING.contains(&c) || matches!(c, '.' | ':'));
    if core.is_empty() {
        word
    } else {
        core
    }
}

/// The words of `text` for [`changed_value`](super::changed_value): a code span (with its
/// backticks) whole; of the rest, split at white space, a value or a URL whole (without what
/// wraps it; a Markdown link's last word with its target), and anything else cut into runs of
/// letters, digits, apostrophes and `_ . / @ : + -` and single other characters.
pub(super) fn tokens(text: &str) -> Vec<&str> {
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
pub(super) fn code_span(text: &str) -> Option<(usize, usize)> {
    let literal = text
        .strip_prefix("``")
        .and_then(|inner| inner.find("``").filter(|&len| len > 0));
    match literal {
        Some(len) => Some((2, len)),
        None => text.strip_prefix('`')?.find('`').map(|len| (1, len)),
    }
}

pub(super) fn is_word_char(c: char) -> bool {
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
pub(super) fn keys(tokens: &[&str]) -> Vec<String> {
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

/// The page a Markdown link in `word` (`[text](target)`, split at white space) names
/// ([`page`]), when it has one.
pub(super) fn link_target(word: &str, as_page: fn(&str) -> &str) -> Option<&str> {
    let (_, after) = word.split_once("](")?;
    Some(as_page(after.split(')').next().unwrap_or(after))).filter(|t| !t.is_empty())
}

/// The page a link's target names: without a `#fragment` (a place on the page), a trailing
/// `/`, the scheme (`http://` and `https://` name one page, and a link written without one
/// too) and a leading `./`. A link to another place on the same page names the same thing.
pub(super) fn page(target: &str) -> &str {
    let target = target
        .strip_prefix("https://")
        .or_else(|| target.strip_prefix("http://"))
        .unwrap_or(target);
    page_as_written(target.strip_prefix("./").unwrap_or(target))
}

/// A link's target without a `#fragment` and a trailing `/`, its scheme kept.
pub(super) fn page_as_written(target: &str) -> &str {
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
pub(super) fn same_page(a: &str, b: &str) -> bool {
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
pub(super) fn same_linked_word(a: &str, b: &str) -> bool {
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
pub(super) const FUNCTION_WORDS: &[&str] = &[
    "a", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "do", "does", "each", "every", "for", "from", "here", "how", "i", "if", "in", "into",
    "is", "it", "its", "just", "may", "might", "more", "most", "must", "no", "not", "of", "on",
    "only", "or", "our", "please", "should", "so", "some", "than", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "those", "to", "us", "very", "was", "we", "were",
    "what", "when", "which", "who", "why", "will", "with", "would", "you", "your",
];

/// A word that carries meaning: not punctuation, not a function word.
pub(super) fn is_content(token: &str) -> bool {
    token.chars().any(char::is_alphanumeric)
        && !FUNCTION_WORDS.contains(&token.to_lowercase().as_str())
}

/// A code span, or a word [`values`](super::values) reads as a value.
pub(super) fn is_value_token(token: &str) -> bool {
    token.starts_with('`') || is_value(core(token))
}

pub(super) fn is_value(word: &str) -> bool {
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
