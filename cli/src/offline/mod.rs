//! Offline tools: they need no daemon and no bus.
pub(crate) mod decode;
pub(crate) mod parse;
pub(crate) mod position;
pub(crate) mod replay;
pub(crate) mod simulate;
