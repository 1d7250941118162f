//! The Clock object as the bus serves it ([`ClockServed`]): the `#[interface]` of
//! [`ClockIface`] (methods, signals, `Board`, `Snapshot`, `LiveSnapshot`) plus one property
//! per field of the published clock ([`PublishedClock`]), served from its table: values,
//! `GetAll`, introspection (with each field's doc) and `PropertiesChanged`.
//!
//! Owns only this joining; the fields, their names and D-Bus types are the api crate's
//! model, the values the actor's published state. No field is named here.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::OnceLock;

use zbus::message::{Header, Message};
use zbus::names::{InterfaceName, MemberName};
use zbus::object_server::{DispatchResult, Interface, SignalEmitter};
use zbus::{BoxDBusError, Connection, ObjectServer, OwnedVariant, Variant, fdo};

use super::ClockIface;
use crate::device::{ClockState, PublishedClock};

/// One clock on the bus: its interface and its published fields.
#[derive(Debug)]
pub struct ClockServed(pub ClockIface);

impl ClockIface {
    /// Every published field as its D-Bus property, for `GetAll` and `GetClocks`.
    pub(crate) fn published_properties(&self) -> HashMap<String, OwnedVariant> {
        let st = self.st();
        PublishedClock::PROPERTIES
            .iter()
            .filter_map(|p| Some((p.name.to_owned(), st.clock.property(p.name)?)))
            .collect()
    }
}

/// One `PropertiesChanged` for everything a state change changed: the published fields that
/// differ between `old` and `new`, and `Snapshot` when the snapshot or its instant did.
/// Nothing when neither did.
pub(crate) async fn emit_changes(
    emitter: &SignalEmitter<'_>,
    old: &ClockState,
    new: &ClockState,
) -> zbus::Result<()> {
    let mut changed: HashMap<&str, Variant<'_>> = new
        .clock
        .changed(&old.clock)
        .into_iter()
        .filter(|p| !p.constant)
        .filter_map(|p| Some((p.name, Variant::from(new.clock.property(p.name)?))))
        .collect();
    if old.snapshot != new.snapshot || old.as_of_us != new.as_of_us {
        changed.insert("Snapshot", ClockIface::snapshot_variant(new));
    }
    if changed.is_empty() {
        return Ok(());
    }
    fdo::Properties::properties_changed(emitter, ClockIface::name(), changed, Cow::Borrowed(&[]))
        .await
}

/// Each field's doc, by JSON key, from the model's schema (its doc comments).
fn docs() -> &'static HashMap<String, String> {
    static DOCS: OnceLock<HashMap<String, String>> = OnceLock::new();
    DOCS.get_or_init(|| {
        let schema = schemars::schema_for!(PublishedClock).to_value();
        schema["properties"]
            .as_object()
            .map(|props| {
                props
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), v["description"].as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default()
    })
}

/// The published fields' `<property>` elements, by name, at `level`.
fn introspect_published(writer: &mut dyn Write, level: usize) {
    let mut props: Vec<_> = PublishedClock::PROPERTIES.iter().collect();
    props.sort_by_key(|p| p.name);
    for p in props {
        if let Some(doc) = docs().get(p.key) {
            zbus::object_server::introspect_doc_comment(writer, level, doc);
        }
        let (name, ty) = (p.name, p.signature);
        if p.constant {
            let _ = writeln!(
                writer,
                "{:level$}<property name=\"{name}\" type=\"{ty}\" access=\"read\">\n\
                 {:annot$}<annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" \
                 value=\"const\"/>\n{:level$}</property>",
                "",
                "",
                "",
                annot = level + 2,
            );
        } else {
            let _ = writeln!(
                writer,
                "{:level$}<property name=\"{name}\" type=\"{ty}\" access=\"read\"/>",
                ""
            );
        }
    }
}

#[async_trait::async_trait]
impl Interface for ClockServed {
    fn name() -> InterfaceName<'static> {
        ClockIface::name()
    }

    fn spawn_tasks_for_methods(&self) -> bool {
        self.0.spawn_tasks_for_methods()
    }

    async fn get(
        &self,
        property_name: &str,
        server: &ObjectServer,
        connection: &Connection,
        header: Option<&Header<'_>>,
        emitter: &SignalEmitter<'_>,
    ) -> Option<Result<OwnedVariant, BoxDBusError>> {
        let published = self.0.st().clock.property(property_name);
        match published {
            Some(v) => Some(Ok(v)),
            None => {
                self.0
                    .get(property_name, server, connection, header, emitter)
                    .await
            }
        }
    }

    async fn get_all(
        &self,
        server: &ObjectServer,
        connection: &Connection,
        header: Option<&Header<'_>>,
        emitter: &SignalEmitter<'_>,
    ) -> fdo::Result<HashMap<String, OwnedVariant>> {
        let mut all = self.0.get_all(server, connection, header, emitter).await?;
        all.extend(self.0.published_properties());
        Ok(all)
    }

    fn set<'call>(
        &'call self,
        property_name: &'call str,
        value: &'call Variant<'_>,
        server: &'call ObjectServer,
        connection: &'call Connection,
        header: Option<&'call Header<'_>>,
        emitter: &'call SignalEmitter<'_>,
    ) -> DispatchResult<'call> {
        self.0
            .set(property_name, value, server, connection, header, emitter)
    }

    async fn set_mut(
        &mut self,
        property_name: &str,
        value: &Variant<'_>,
        server: &ObjectServer,
        connection: &Connection,
        header: Option<&Header<'_>>,
        emitter: &SignalEmitter<'_>,
    ) -> Option<Result<(), BoxDBusError>> {
        self.0
            .set_mut(property_name, value, server, connection, header, emitter)
            .await
    }

    fn call<'call>(
        &'call self,
        server: &'call ObjectServer,
        connection: &'call Connection,
        msg: &'call Message,
        name: MemberName<'call>,
    ) -> DispatchResult<'call> {
        self.0.call(server, connection, msg, name)
    }

    fn call_mut<'call>(
        &'call mut self,
        server: &'call ObjectServer,
        connection: &'call Connection,
        msg: &'call Message,
        name: MemberName<'call>,
    ) -> DispatchResult<'call> {
        self.0.call_mut(server, connection, msg, name)
    }

    fn introspect_to_writer(&self, writer: &mut dyn Write, level: usize) {
        // The interface's own XML with the published fields' properties added before it
        // closes.
        let mut inner = String::new();
        self.0.introspect_to_writer(&mut inner, level);
        let close = inner.rfind("</interface>").unwrap_or(inner.len());
        let close = inner[..close].rfind('\n').map_or(close, |nl| nl + 1);
        let _ = writer.write_str(&inner[..close]);
        introspect_published(writer, level + 2);
        let _ = writer.write_str(&inner[close..]);
    }
}
