//! The error of text analysis.

use std::fmt;

/// What went wrong analysing text: the in-memory SQLite database that runs the index's
/// tokenizer failed (it cannot open, or a statement fails), or a list could not be written as
/// JSON.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// The kind of an [`Error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The tokenizer's database failed.
    Tokenizer,
    /// A value could not be written as the index holds it (a list as JSON).
    InvalidInput,
}

/// A `Result` whose error is this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    #[cfg_attr(not(feature = "analyzer"), allow(dead_code))]
    pub(crate) fn new(
        kind: ErrorKind,
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error {
            kind,
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// What went wrong, in words for a person (the underlying error's message included).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The underlying error, taken out: for a caller that wraps this error's
    /// [`message`](Error::message) in its own error type.
    pub fn into_source(self) -> Option<Box<dyn std::error::Error + Send + Sync>> {
        self.source
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
