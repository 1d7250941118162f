//! The fleet of a `fleet = true` bridge: the model of [`chessclock_api::fleet::view`] (every
//! machine's clocks, liveness and problems; pure) behind one lock, fed by the MQTT task
//! ([`crate::mqtt`]) and read by HTTP ([`crate::http`]). Nothing else lives here.

use std::sync::{Arc, Mutex};

pub(crate) use chessclock_api::fleet::view::{Board, Fleet};

/// The fleet as the MQTT task feeds it and HTTP reads it.
pub(crate) type Shared = Arc<Mutex<Fleet>>;
