use std::borrow::Cow;
use std::collections::BTreeSet;

use proptest::prelude::*;

use super::{
    changed::*, extended::*, extract::*, kinds::*, relations::*, reworded::*, said::*, same::*,
    stated::*, tokens::*,
};

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
        // Or with a value of a sentence kept changed too (arcana-agent's CLAUDE.md), the
        // sentence added starting with a version.
        (
            "Current: v0.8.2 -- 1467 tests passing. Major features:",
            "Current: v1.0.0 -- 1490 tests passing. v1.0.0 is the first release under the \
             stability promise. Major features:",
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
    assert!(!adds_a_sentence(
        "Run the tests with Jest. Then push the branch.",
        "Run the tests. Review the diff first. Then push the branch.",
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
        // A bound of a version range dropped or added.
        ("Requires Python ≥3.10, <3.14", "Requires Python ≥3.10"),
        // A name dropped from a list, its comma written onto the value before it.
        (
            "When fixing reviewer comments (human, CodeRabbit, Qodo):",
            "When fixing reviewer comments (human, CodeRabbit):",
        ),
        // A plain item added to a list, or dropped, wherever the diff puts `and` (here
        // after "changelog", or before "the").
        (
            "NEVER assume clippy warnings are pre-existing",
            "NEVER assume clippy warnings or test failures are pre-existing",
        ),
        (
            "Don't forget to update the changelog and the documentation.",
            "Don't forget to update the documentation.",
        ),
        (
            "Before you open a pull request, run the tests.",
            "Before you open a pull request, run the linter and the tests.",
        ),
        // As terse notes join them.
        (
            "Anthropic (claude-sonnet-4) -- direct answer",
            "Anthropic (claude-sonnet-4) -- direct answer + structured output",
        ),
        (
            "resume · export · serve · tui · reset",
            "search · resume · export · tag · prune · serve · mcp · tui · reset",
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
        // A value said not to be chosen, beside the one kept: no item of a list.
        ("Deploys use pnpm 8", "Deploys use pnpm 8, not npm"),
        // Function words beside a conjunction, no item.
        (
            "Contribute to the examples or to the documentation",
            "Contribute to the examples or the documentation",
        ),
        (
            "Open an issue first and then a pull request",
            "Open an issue first, then a pull request",
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
        // A hyphen between, as a dash.
        (
            "**debugger** - Error analysis and debugging",
            "**debugger** - Root cause analysis (diagnosis only, delegates fixes to specialists)",
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
