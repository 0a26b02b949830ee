use std::fmt;

/// A `Result` whose error defaults to [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The error type shared by every oro-mem crate.
///
/// Other crates convert their own errors into this one at the trait boundary, so a caller
/// deals with a single type. Match on [`Error::kind`] to tell what went wrong.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// What kind of failure an [`Error`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The caller passed something invalid: empty content, an unknown type, a bad filter.
    InvalidInput,
    /// The configuration is invalid (a weight below zero, an unknown key, ...).
    Config,
    /// A memory with the requested id does not exist.
    NotFound,
    /// The storage layer failed (I/O, SQLite, a corrupt database).
    Storage,
    /// The embedding model or runtime failed or is missing.
    Embedding,
    /// The store cannot be written where it is (a directory, file or filesystem this process
    /// may not write); it can still be opened for reading.
    ReadOnly,
}

impl Error {
    /// Creates an error of `kind` with a message meant for a person.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// Shorthand for an [`ErrorKind::InvalidInput`] error.
    pub fn invalid_input(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidInput, message)
    }

    /// Shorthand for an [`ErrorKind::Config`] error.
    pub fn config(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Config, message)
    }

    /// Shorthand for an [`ErrorKind::NotFound`] error.
    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::NotFound, message)
    }

    /// Attaches the underlying cause.
    pub fn with_source(
        mut self,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Error {
        self.source = Some(source.into());
        self
    }

    /// Prefixes the message with what was being done (`query q1: ...`), keeping the kind and
    /// the cause.
    pub fn context(mut self, what: impl fmt::Display) -> Error {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, without the cause.
    pub fn message(&self) -> &str {
        &self.message
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

/// A text analysis error: the index's tokenizer failing is a storage failure, a value it
/// cannot write is the caller's.
impl From<oro_mem_text::Error> for Error {
    fn from(e: oro_mem_text::Error) -> Error {
        let kind = match e.kind() {
            oro_mem_text::ErrorKind::InvalidInput => ErrorKind::InvalidInput,
            _ => ErrorKind::Storage,
        };
        let error = Error::new(kind, e.message());
        match e.into_source() {
            Some(source) => error.with_source(source),
            None => error,
        }
    }
}
