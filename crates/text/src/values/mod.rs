//! The values a statement names, compared exactly: what tells a changed fact ("the staging
//! API runs on port 9090") from the same statement reworded, where the words alone cannot.
//! The full-text index drops digits, single characters and the punctuation inside versions
//! and paths, so to it "pnpm 8" and "pnpm 9" are the same text.
//!
//! The write path asks three questions of an old statement and a new one, and each has its
//! module:
//!
//! - Is the new one an update of the old? [`changed`] (a value changed: [`changed_value`],
//!   and the one answer, [`updates`]), [`extended`] (a value, clause or sentence added:
//!   [`extends`]), [`said`] (a change said in words: [`says_changed`]; two facts said to hold
//!   together: [`says_beside`]).
//! - Is it the same statement? [`same`] (the same passage, entry or subject: [`same_passage`],
//!   [`same_entry`], [`subject_replaced`]), [`reworded`] (the same rule in other words:
//!   [`rewords`]), [`extract`] (the same values: [`same_values`]).
//! - What does a statement name? [`extract`] ([`values`], [`identifiers`], commands),
//!   [`kinds`] (what a word is: a number, a tool, a place, a name, …).
//!
//! Below them, [`stated`] takes the formatting off a statement, [`tokens`] cuts it into
//! words and the keys they are compared by, and [`relations`] says how two words relate
//! (a typo, a hyphen, opposites, an order).

mod changed;
mod extended;
mod extract;
mod kinds;
mod relations;
mod reworded;
mod said;
mod same;
mod stated;
mod tokens;

#[cfg(test)]
mod tests;

pub use self::changed::{changed_value, updates};
pub use self::extended::extends;
pub use self::extract::{identifiers, names, same_values, values};
pub use self::reworded::{plain_words, rewords};
pub use self::said::{says_beside, says_changed};
pub use self::same::{holds_the_other, same_entry, same_passage, subject_replaced};
