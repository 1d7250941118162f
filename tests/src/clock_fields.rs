//! A clock's published fields read one D-Bus property at a time, as a client that knows only
//! the introspection XML reads them (`busctl get-property`, a GLib or Python client): the
//! compatibility the per-field properties keep. The project's own clients read them all at
//! once (`chessclock_api::read`).
//!
//! Test scaffolding only: each method is a `Get` of the property of the same name.

use chessclock_api::proxy::ClockProxy;

/// Declares [`ClockFields`] and its implementation for the api's [`ClockProxy`].
macro_rules! fields {
    ($($method:ident: $ty:ty => $prop:literal;)*) => {
        /// A clock's published fields, one `Get` each.
        #[allow(async_fn_in_trait)]
        pub trait ClockFields {
            $(
                #[doc = concat!("The `", $prop, "` property.")]
                async fn $method(&self) -> zbus::Result<$ty>;
            )*
        }

        impl ClockFields for ClockProxy<'_> {
            $(
                async fn $method(&self) -> zbus::Result<$ty> {
                    self.inner().get_property($prop).await
                }
            )*
        }
    };
}

fields! {
    index: u32 => "Index";
    port: String => "Port";
    model: String => "Model";
    device_state: String => "DeviceState";
    game_state: String => "GameState";
    time_control: String => "TimeControl";
    white_side: String => "WhiteSide";
}
