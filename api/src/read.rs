//! Reading clocks from the daemon in one round trip: every clock with the Manager's
//! `GetClocks` (or `GetManagedObjects` from a daemon without it), one clock with
//! `Properties.GetAll`. Owns no caching and no retrying: callers decide.

use std::collections::HashMap;

use zbus::fdo::PropertiesProxy;
use zbus::names::InterfaceName;
use zbus::{Connection, ObjectPath, OwnedObjectPath, Variant};

use crate::names::{BUS_NAME, CLOCK_INTERFACE, MANAGER_INTERFACE, MANAGER_PATH, clock_index};
use crate::status::{ClockStatus, StatusError};

/// Why a read failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The bus or the daemon failed (not running, access denied, ...).
    #[error("{0}")]
    Bus(zbus::Error),
    /// The daemon answered with properties that make no clock.
    #[error("{0}")]
    Status(StatusError),
}

impl From<zbus::Error> for ReadError {
    fn from(e: zbus::Error) -> Self {
        ReadError::Bus(e)
    }
}

impl From<zbus::fdo::Error> for ReadError {
    fn from(e: zbus::fdo::Error) -> Self {
        ReadError::Bus(e.into())
    }
}

/// The daemon's `GetManagedObjects` answer, as a message (read it in place, or note its
/// serial: signals sent before it are part of it). Error replies keep their names
/// (ServiceUnknown, AccessDenied, ...), as a proxy gives them.
pub async fn managed_objects(conn: &Connection) -> zbus::fdo::Result<zbus::Message> {
    Ok(conn
        .call_method(
            Some(BUS_NAME),
            MANAGER_PATH,
            Some("org.freedesktop.DBus.ObjectManager"),
            "GetManagedObjects",
            &(),
        )
        .await?)
}

/// A clock's properties read in place: names and values borrow the message.
pub type BorrowedProps<'m> = HashMap<&'m str, Variant<'m>>;

/// The `GetManagedObjects` answer read in place.
type BorrowedObjects<'m> = HashMap<ObjectPath<'m>, HashMap<&'m str, BorrowedProps<'m>>>;

/// The answer holding every clock's properties, and which call gave it.
#[derive(Debug)]
pub struct ClocksReply {
    /// The reply (note its serial: signals sent before it are part of it).
    pub message: zbus::Message,
    body: zbus::message::Body,
    /// From `GetManagedObjects` (a daemon without `GetClocks`): every interface of every
    /// object, to be sifted for the clocks.
    managed: bool,
}

impl ClocksReply {
    /// Each clock's `org.chessclockd.ChessClock1.Clock` properties by object path, read in
    /// place.
    pub fn clocks(&self) -> zbus::Result<Vec<(ObjectPath<'_>, BorrowedProps<'_>)>> {
        let body = &self.body;
        if !self.managed {
            let clocks: HashMap<ObjectPath<'_>, BorrowedProps<'_>> = body.deserialize()?;
            return Ok(clocks.into_iter().collect());
        }
        let objects: BorrowedObjects<'_> = body.deserialize()?;
        Ok(objects
            .into_iter()
            .filter(|(path, _)| clock_index(path.as_str()).is_some())
            .filter_map(|(path, mut ifaces)| Some((path, ifaces.remove(CLOCK_INTERFACE)?)))
            .collect())
    }
}

/// Every clock's properties in one round trip: the Manager's `GetClocks`, which the daemon
/// answers from dictionaries built once per state; `GetManagedObjects` from a daemon older
/// than it. Error replies keep their names (ServiceUnknown, AccessDenied, ...).
pub async fn clocks_reply(conn: &Connection) -> zbus::fdo::Result<ClocksReply> {
    let call = conn
        .call_method(
            Some(BUS_NAME),
            MANAGER_PATH,
            Some(MANAGER_INTERFACE),
            "GetClocks",
            &(),
        )
        .await;
    match call.map_err(zbus::fdo::Error::from) {
        Ok(message) => Ok(ClocksReply {
            body: message.body(),
            message,
            managed: false,
        }),
        Err(zbus::fdo::Error::UnknownMethod(_)) => {
            let message = managed_objects(conn).await?;
            Ok(ClocksReply {
                body: message.body(),
                message,
                managed: true,
            })
        }
        Err(e) => Err(e),
    }
}

/// Every attached clock, in index order, in one round trip. The answer is read in place,
/// not copied into owned values first: at 128 clocks that copy was most of the client's work.
pub async fn all_clocks(conn: &Connection) -> Result<Vec<ClockStatus>, ReadError> {
    let reply = clocks_reply(conn).await?;
    let mut out = Vec::new();
    for (path, props) in reply.clocks()? {
        let status = ClockStatus::from_lookup(path.as_str(), |name| props.get(name))
            .map_err(ReadError::Status)?;
        out.push(status);
    }
    out.sort_by_key(|c| c.index);
    Ok(out)
}

/// One clock, in one round trip.
pub async fn clock(conn: &Connection, path: &OwnedObjectPath) -> Result<ClockStatus, ReadError> {
    let props = clock_properties(conn, path).await?;
    ClockStatus::from_properties(path.as_str(), &props).map_err(ReadError::Status)
}

/// The `GetAll` dictionary of one clock.
pub async fn clock_properties(
    conn: &Connection,
    path: &OwnedObjectPath,
) -> Result<HashMap<String, zbus::OwnedVariant>, ReadError> {
    let proxy = PropertiesProxy::builder(conn)
        .destination(BUS_NAME)
        .path(path.clone())
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await?;
    let iface = InterfaceName::from_static_str_unchecked(CLOCK_INTERFACE);
    Ok(proxy.get_all(iface).await?)
}
