//! TLS with rustls, by libpq's `sslmode` rules:
//!
//! | `sslmode` | encrypted | certificate checked |
//! |---|---|---|
//! | `disable` | no | — |
//! | `prefer` (the default) | when the server offers it | no (against `sslrootcert` when given) |
//! | `require` | yes | no (against `sslrootcert` when given, as libpq does) |
//! | `verify-ca` | yes | signed by a trusted root |
//! | `verify-full` | yes | signed by a trusted root, and for the host connected to |
//!
//! Trusted roots are those of `sslrootcert` (a PEM file), else the Mozilla roots bundled by
//! `webpki-roots`. The handshake's signatures are always verified: "not checked" means only
//! that the certificate is not required to chain to a trusted root.

use std::path::PathBuf;
use std::sync::Arc;

use oro_mem_core::{Error, Result};
use postgres::config::SslMode;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

/// `sslmode`, as libpq reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Mode {
    Disable,
    #[default]
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// How to secure the connection: the mode and the roots to trust.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tls {
    pub(crate) mode: Mode,
    pub(crate) root_cert: Option<PathBuf>,
}

impl Mode {
    pub(crate) fn parse(value: &str) -> Result<Mode> {
        Ok(match value {
            "disable" => Mode::Disable,
            "allow" | "prefer" => Mode::Prefer,
            "require" => Mode::Require,
            "verify-ca" => Mode::VerifyCa,
            "verify-full" => Mode::VerifyFull,
            other => {
                return Err(Error::invalid_input(format!(
                    "sslmode {other:?} is not one of disable, allow, prefer, require, \
                     verify-ca, verify-full"
                )))
            }
        })
    }

    /// What the client library is told: it knows whether to ask for TLS, not what to check.
    pub(crate) fn ssl_mode(self) -> SslMode {
        match self {
            Mode::Disable => SslMode::Disable,
            Mode::Prefer => SslMode::Prefer,
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => SslMode::Require,
        }
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

impl Tls {
    /// The connector for these settings.
    pub(crate) fn connector(&self) -> Result<MakeRustlsConnect> {
        let provider = provider();
        let roots = match &self.root_cert {
            Some(path) => {
                let mut roots = RootCertStore::empty();
                let certs = CertificateDer::pem_file_iter(path).map_err(|e| {
                    Error::invalid_input(format!("cannot read sslrootcert {}: {e}", path.display()))
                })?;
                for cert in certs {
                    let cert = cert.map_err(|e| {
                        Error::invalid_input(format!("sslrootcert {}: {e}", path.display()))
                    })?;
                    roots.add(cert).map_err(|e| {
                        Error::invalid_input(format!("sslrootcert {}: {e}", path.display()))
                    })?;
                }
                Some(roots)
            }
            None => None,
        };
        let checked = matches!(self.mode, Mode::VerifyCa | Mode::VerifyFull) || roots.is_some();
        let roots = roots.unwrap_or_else(|| RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        });
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| Error::invalid_input(format!("cannot use the trusted roots: {e}")))?;
        let verifier = Verifier {
            webpki,
            provider: provider.clone(),
            chain: checked,
            host: self.mode == Mode::VerifyFull,
        };
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::invalid_input(format!("cannot set up TLS: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        Ok(MakeRustlsConnect::new(config))
    }
}

/// Checks what the mode asks for: the chain to a trusted root (`chain`), the host name
/// (`host`), and always the handshake's signatures.
#[derive(Debug)]
struct Verifier {
    webpki: Arc<WebPkiServerVerifier>,
    provider: Arc<CryptoProvider>,
    chain: bool,
    host: bool,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        if !self.chain {
            return Ok(ServerCertVerified::assertion());
        }
        match self.webpki.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForNameContext { .. },
            )) if !self.host => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
