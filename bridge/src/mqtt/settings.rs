//! The `mqtt` setting: a broker URL alone (`mqtt = "mqtt://host"`) or a table
//! (`[mqtt]` with `url`, `password_file`, `ca_file`), and what it resolves to when the settings
//! are loaded: the broker with its password (from the URL, `password_file` or systemd's
//! credential `mqtt-password`) and, for `mqtts://`, the TLS configuration. Owns those rules
//! and their messages; no connection is made here.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Result, anyhow};
use chessclock_api::fleet::{Broker, parse_broker};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::secrets::{self, Credentials};

/// The `[mqtt]` table (or `mqtt = "URL"`, its `url` alone).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MqttSettings {
    /// `mqtt://host[:port]` or `mqtts://[user[:password]@]host[:port]`.
    pub(crate) url: String,
    /// A file holding the password of the URL's user (better than a password in the URL).
    #[serde(default)]
    pub(crate) password_file: Option<PathBuf>,
    /// PEM certificates of a private CA to trust besides the system's store (`mqtts://`).
    #[serde(default)]
    pub(crate) ca_file: Option<PathBuf>,
}

/// Where and how to publish: the broker with its password, and the TLS configuration of an
/// `mqtts://` broker.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) broker: Broker,
    pub(crate) tls: Option<Arc<rustls::ClientConfig>>,
}

/// serde's `deserialize_with` for `mqtt`: a URL string or a table.
pub(crate) fn url_or_table<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<MqttSettings>, D::Error> {
    struct UrlOrTable;
    impl<'de> Visitor<'de> for UrlOrTable {
        type Value = MqttSettings;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(
                "a broker URL (mqtt = \"mqtt://host\") or a table [mqtt] with url, \
                 password_file, ca_file",
            )
        }
        fn visit_str<E: de::Error>(self, url: &str) -> Result<MqttSettings, E> {
            Ok(MqttSettings {
                url: url.to_owned(),
                ..MqttSettings::default()
            })
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MqttSettings, A::Error> {
            MqttSettings::deserialize(de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_any(UrlOrTable).map(Some)
}

impl MqttSettings {
    /// The broker, its password and its TLS configuration; on error, the key at fault.
    pub(crate) fn resolve(
        &self,
        creds: &Credentials,
    ) -> Result<Target, (&'static str, anyhow::Error)> {
        let mut broker =
            parse_broker(&self.url).map_err(|e| ("mqtt.url", anyhow!("mqtt.url: {e}")))?;
        match (&self.password_file, &broker.password) {
            (Some(_), Some(_)) => {
                return Err((
                    "mqtt.password_file",
                    anyhow!(
                        "the MQTT password is given twice, in mqtt.url and in \
                         mqtt.password_file: keep the file and take it out of the URL"
                    ),
                ));
            }
            (Some(file), None) => {
                broker.password = Some(
                    secrets::read(file, "the MQTT password (mqtt.password_file)")
                        .map_err(|e| ("mqtt.password_file", e))?,
                );
            }
            (None, Some(_)) => {}
            (None, None) => {
                broker.password = creds
                    .get(secrets::MQTT_PASSWORD)
                    .map_err(|e| ("mqtt.url", e))?;
            }
        }
        if broker.password.is_some() && broker.user.is_none() {
            return Err((
                "mqtt.url",
                anyhow!(
                    "there is an MQTT password (mqtt.password_file or the credential \
                     mqtt-password) but mqtt.url names no user: write mqtts://USER@host"
                ),
            ));
        }
        if self.ca_file.is_some() && !broker.tls {
            return Err((
                "mqtt.ca_file",
                anyhow!(
                    "mqtt.ca_file is set but mqtt.url is plain mqtt://: use mqtts:// for TLS, \
                     or remove ca_file"
                ),
            ));
        }
        let tls = match broker.tls {
            true => Some(
                crate::tls::client_config(self.ca_file.as_deref(), "mqtt.ca_file")
                    .map_err(|e| ("mqtt.ca_file", e))?,
            ),
            false => None,
        };
        Ok(Target { broker, tls })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str, password_file: Option<PathBuf>) -> MqttSettings {
        MqttSettings {
            url: url.to_owned(),
            password_file,
            ca_file: None,
        }
    }

    #[test]
    fn the_password_comes_from_the_url_the_file_or_the_credential_and_never_twice() {
        let dir = std::env::temp_dir().join(format!("bridge-mqtt-pw-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("pw"), "from-file\n").expect("write");
        std::fs::write(dir.join(secrets::MQTT_PASSWORD), "from-cred\n").expect("write");
        let creds = Credentials::new(Some(dir.clone()), false);
        let none = Credentials::default();
        let pw = |s: &MqttSettings, c: &Credentials| s.resolve(c).map(|t| t.broker.password);

        let url = "mqtt://pi:in-url@h";
        assert_eq!(
            pw(&settings(url, None), &creds).expect("url").as_deref(),
            Some("in-url")
        );
        let file = Some(dir.join("pw"));
        let s = settings("mqtt://pi@h", file.clone());
        assert_eq!(pw(&s, &creds).expect("file").as_deref(), Some("from-file"));
        let s = settings("mqtt://pi@h", None);
        assert_eq!(pw(&s, &creds).expect("cred").as_deref(), Some("from-cred"));
        assert_eq!(pw(&s, &none).expect("anonymous password"), None);

        let (key, e) = settings(url, file).resolve(&none).expect_err("twice");
        assert_eq!(key, "mqtt.password_file");
        assert!(format!("{e}").contains("given twice"), "{e}");
        let (key, e) = settings("mqtt://h", None)
            .resolve(&creds)
            .expect_err("no user");
        assert_eq!(key, "mqtt.url");
        assert!(format!("{e}").contains("names no user"), "{e}");
        let missing = Some(dir.join("missing"));
        let (key, e) = settings("mqtt://pi@h", missing)
            .resolve(&none)
            .expect_err("missing");
        assert_eq!(key, "mqtt.password_file");
        assert!(
            format!("{e:#}").contains("cannot read the MQTT password"),
            "{e:#}"
        );
        let (key, e) = settings("http://h", None)
            .resolve(&none)
            .expect_err("scheme");
        assert_eq!(key, "mqtt.url");
        assert!(format!("{e}").contains("mqtts://"), "{e}");
        let mut s = settings("mqtt://h", None);
        s.ca_file = Some(dir.join("ca.pem"));
        let (key, _) = s.resolve(&none).expect_err("ca_file without TLS");
        assert_eq!(key, "mqtt.ca_file");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
