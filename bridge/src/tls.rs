//! TLS for the bridge's clients (MQTT over `mqtts://`, Lichess and alerts over https): one rustls
//! configuration that trusts the system's CA store (Debian's ca-certificates in
//! /etc/ssl/certs, or `SSL_CERT_FILE` / `SSL_CERT_DIR` when set) and, for a private CA, the
//! certificates of a `ca_file`; no roots compiled in. Owns building that configuration and
//! explaining why a handshake failed; it opens no connection itself.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};

/// The bridge's HTTP client (Lichess pushes, alerts): its user agent, `timeout`, and for
/// https the system's CA store through `tls` (reqwest compiles no roots in here).
pub(crate) fn http_client(
    timeout: std::time::Duration,
    tls: Option<Arc<ClientConfig>>,
) -> reqwest::Result<reqwest::Client> {
    let mut builder = reqwest::Client::builder()
        .user_agent(concat!("chessclock-bridge/", env!("CARGO_PKG_VERSION")))
        .timeout(timeout);
    if let Some(tls) = tls {
        builder = builder.use_preconfigured_tls(ClientConfig::clone(&tls));
    }
    builder.build()
}

/// A client configuration trusting the system's CA store and the PEM certificates in
/// `ca_file` (`key` names that setting in messages).
pub(crate) fn client_config(ca_file: Option<&Path>, key: &str) -> Result<Arc<ClientConfig>> {
    let mut roots = RootCertStore::empty();
    let system = rustls_native_certs::load_native_certs();
    let (_, ignored) = roots.add_parsable_certificates(system.certs);
    let mut system_problems: Vec<String> = system.errors.iter().map(|e| e.to_string()).collect();
    if ignored > 0 {
        system_problems.push(format!("{ignored} certificates could not be parsed"));
    }
    if let Some(file) = ca_file {
        let certs = CertificateDer::pem_file_iter(file)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| {
                anyhow!(
                    "{key} = {:?}: cannot read PEM certificates from it ({e}); it must be the \
                     CA certificate (PEM, -----BEGIN CERTIFICATE-----) that signed the server's",
                    file.display().to_string()
                )
            })?;
        if certs.is_empty() {
            bail!(
                "{key} = {:?} holds no certificate; it must be the CA certificate (PEM, \
                 -----BEGIN CERTIFICATE-----) that signed the server's",
                file.display().to_string()
            );
        }
        for (i, cert) in certs.into_iter().enumerate() {
            roots.add(cert).with_context(|| {
                format!(
                    "{key} = {:?}: certificate {} is not a valid CA certificate",
                    file.display().to_string(),
                    i + 1
                )
            })?;
        }
    }
    if roots.is_empty() {
        let why = match system_problems.is_empty() {
            true => String::new(),
            false => format!(" ({})", system_problems.join("; ")),
        };
        bail!(
            "no CA certificate to trust: the system's store is empty{why}; install Debian's \
             ca-certificates, or set {key} to the CA that signed the server's certificate"
        );
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("rustls has no TLS version in common with its crypto provider")?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// What to do about a failed TLS handshake with `server`, if `err` is one (`key` names the
/// CA setting): a certificate no trusted CA signed, or one for another name, or expired.
pub(crate) fn explain(err: &(dyn std::error::Error + 'static), key: &str) -> Option<String> {
    let mut source = Some(err);
    while let Some(e) = source {
        if let Some(rustls::Error::InvalidCertificate(cert)) = e.downcast_ref::<rustls::Error>() {
            return Some(match cert {
                rustls::CertificateError::UnknownIssuer => format!(
                    "the server's TLS certificate is not signed by a CA this machine trusts: \
                     put its CA in the system's store (/usr/local/share/ca-certificates, then \
                     update-ca-certificates) or set {key} to it"
                ),
                rustls::CertificateError::NotValidForName
                | rustls::CertificateError::NotValidForNameContext { .. } => {
                    "the server's TLS certificate is for another name: use the host name (or \
                     address) that the certificate names in the URL"
                        .to_owned()
                }
                rustls::CertificateError::Expired
                | rustls::CertificateError::ExpiredContext { .. } => {
                    "the server's TLS certificate has expired (or this machine's clock is wrong)"
                        .to_owned()
                }
                other => format!("the server's TLS certificate is refused: {other:?}"),
            });
        }
        // An io::Error's source() skips the error it wraps (tokio-rustls wraps rustls's).
        source = match e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => e.source(),
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_that_is_not_pem_is_refused_with_the_setting_named() {
        let dir = std::env::temp_dir().join(format!("bridge-tls-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("ca.pem");
        std::fs::write(&file, "not a certificate\n").expect("write");
        let e = format!(
            "{:#}",
            client_config(Some(&file), "mqtt.ca_file").expect_err("no cert")
        );
        assert!(
            e.starts_with("mqtt.ca_file = ") && e.contains("holds no certificate"),
            "{e}"
        );
        let e = format!(
            "{:#}",
            client_config(Some(&dir.join("missing.pem")), "mqtt.ca_file").expect_err("missing")
        );
        assert!(e.contains("cannot read PEM certificates"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn handshake_errors_are_explained_through_their_sources() {
        let err = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        );
        let why = explain(&err, "mqtt.ca_file").expect("explained");
        assert!(
            why.contains("not signed by a CA") && why.contains("mqtt.ca_file"),
            "{why}"
        );
        let plain = std::io::Error::other("connection refused");
        assert!(explain(&plain, "mqtt.ca_file").is_none());
    }
}
