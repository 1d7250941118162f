//! Any `Serialize` value straight to D-Bus variants, in the same shape as going through its
//! JSON form with [`crate::variant::json_to_variant`] (objects `a{sv}`, arrays `av`,
//! integers `t` or `x` when negative, floats `d`, strings `s`, booleans `b`, null left out),
//! without building the JSON first.
//!
//! The daemon turns the engine's typed snapshot into its `Snapshot` and `LiveSnapshot`
//! dictionaries with it on every change and every read of every clock, so it must stay one
//! pass with no intermediate tree. Owns this mapping only; a test checks it against the JSON
//! path for every serde shape the snapshot uses.

use std::collections::BTreeMap;

use serde::ser::{self, Serialize};
use zbus::{OwnedVariant, Variant};

/// `value` as an `a{sv}` dictionary; `None` when it is not an object (a map or a struct) in
/// its JSON form.
pub fn to_dict<T: Serialize + ?Sized>(value: &T) -> Option<BTreeMap<String, OwnedVariant>> {
    match value.serialize(ToVariant) {
        Ok(Node::Dict(d)) => Some(d),
        _ => None,
    }
}

/// What one value became.
enum Node {
    /// JSON `null`: left out of dictionaries and arrays.
    Null,
    /// A dictionary, kept open until its parent wraps it.
    Dict(BTreeMap<String, OwnedVariant>),
    /// Anything else.
    Value(OwnedVariant),
}

impl Node {
    fn into_variant(self) -> Option<OwnedVariant> {
        match self {
            Node::Null => None,
            Node::Dict(d) => Some(OwnedVariant::from(d)),
            Node::Value(v) => Some(v),
        }
    }
}

/// The value cannot be shown (a map key that is not a string or a number, an `u128` out of
/// range): the dictionary is not built.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(String);

impl ser::Error for Unsupported {
    fn custom<M: std::fmt::Display>(msg: M) -> Self {
        Unsupported(msg.to_string())
    }
}

fn int(i: i64) -> Node {
    match u64::try_from(i) {
        Ok(u) => Node::Value(OwnedVariant::from(u)),
        Err(_) => Node::Value(OwnedVariant::from(i)),
    }
}

fn string(s: &str) -> Node {
    Node::Value(OwnedVariant::from(zbus::Str::from(s.to_owned())))
}

fn array(items: Vec<OwnedVariant>) -> Result<Node, Unsupported> {
    OwnedVariant::try_from(Variant::from(items))
        .map(Node::Value)
        .map_err(|e| Unsupported(e.to_string()))
}

fn single(key: &'static str, node: Node) -> Node {
    let mut d = BTreeMap::new();
    if let Some(v) = node.into_variant() {
        d.insert(key.to_owned(), v);
    }
    Node::Dict(d)
}

struct ToVariant;

/// An array being built (sequences, tuples, and the array of a tuple variant).
struct Seq {
    items: Vec<OwnedVariant>,
    /// The variant name of a tuple variant (`{name: [...]}`).
    variant: Option<&'static str>,
}

/// A dictionary being built (maps, structs, and the object of a struct variant).
struct Dict {
    map: BTreeMap<String, OwnedVariant>,
    key: Option<String>,
    variant: Option<&'static str>,
}

/// The narrow numbers serialised as the wide type they convert to.
macro_rules! widen {
    ($($method:ident: $ty:ty => $wide:ident),*) => {
        $(fn $method(self, v: $ty) -> Result<Node, Unsupported> {
            self.$wide(v.into())
        })*
    };
}

impl ser::Serializer for ToVariant {
    type Ok = Node;
    type Error = Unsupported;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Seq;
    type SerializeMap = Dict;
    type SerializeStruct = Dict;
    type SerializeStructVariant = Dict;

    widen!(serialize_i8: i8 => serialize_i64, serialize_i16: i16 => serialize_i64,
        serialize_i32: i32 => serialize_i64, serialize_u8: u8 => serialize_u64,
        serialize_u16: u16 => serialize_u64, serialize_u32: u32 => serialize_u64,
        serialize_f32: f32 => serialize_f64);

    fn serialize_bool(self, v: bool) -> Result<Node, Unsupported> {
        Ok(Node::Value(OwnedVariant::from(v)))
    }
    fn serialize_i64(self, v: i64) -> Result<Node, Unsupported> {
        Ok(int(v))
    }
    fn serialize_u64(self, v: u64) -> Result<Node, Unsupported> {
        Ok(Node::Value(OwnedVariant::from(v)))
    }
    fn serialize_u128(self, v: u128) -> Result<Node, Unsupported> {
        u64::try_from(v)
            .map(|u| Node::Value(OwnedVariant::from(u)))
            .map_err(|_| Unsupported(format!("{v} does not fit in 64 bits")))
    }
    fn serialize_i128(self, v: i128) -> Result<Node, Unsupported> {
        i64::try_from(v)
            .map(int)
            .or_else(|_| self.serialize_u128(v as u128))
    }
    fn serialize_f64(self, v: f64) -> Result<Node, Unsupported> {
        // JSON has no NaN or infinity: serde_json makes them null.
        if v.is_finite() {
            Ok(Node::Value(OwnedVariant::from(v)))
        } else {
            Ok(Node::Null)
        }
    }
    fn serialize_char(self, v: char) -> Result<Node, Unsupported> {
        Ok(string(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<Node, Unsupported> {
        Ok(string(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Node, Unsupported> {
        array(
            v.iter()
                .map(|b| OwnedVariant::from(u64::from(*b)))
                .collect(),
        )
    }
    fn serialize_none(self) -> Result<Node, Unsupported> {
        Ok(Node::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Node, Unsupported> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Node, Unsupported> {
        Ok(Node::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Node, Unsupported> {
        Ok(Node::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Node, Unsupported> {
        Ok(string(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Node, Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Node, Unsupported> {
        Ok(single(variant, value.serialize(self)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Unsupported> {
        Ok(Seq {
            items: Vec::with_capacity(len.unwrap_or(0)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Unsupported> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq, Unsupported> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq, Unsupported> {
        Ok(Seq {
            items: Vec::with_capacity(len),
            variant: Some(variant),
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Dict, Unsupported> {
        Ok(Dict {
            map: BTreeMap::new(),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Dict, Unsupported> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Dict, Unsupported> {
        Ok(Dict {
            map: BTreeMap::new(),
            key: None,
            variant: Some(variant),
        })
    }
}

impl Seq {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        if let Some(v) = value.serialize(ToVariant)?.into_variant() {
            self.items.push(v);
        }
        Ok(())
    }

    fn finish(self) -> Result<Node, Unsupported> {
        let node = array(self.items)?;
        Ok(match self.variant {
            Some(name) => single(name, node),
            None => node,
        })
    }
}

macro_rules! seq_impl {
    ($trait:ident, $method:ident) => {
        impl ser::$trait for Seq {
            type Ok = Node;
            type Error = Unsupported;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
                self.push(value)
            }
            fn end(self) -> Result<Node, Unsupported> {
                self.finish()
            }
        }
    };
}

seq_impl!(SerializeSeq, serialize_element);
seq_impl!(SerializeTuple, serialize_element);
seq_impl!(SerializeTupleStruct, serialize_field);
seq_impl!(SerializeTupleVariant, serialize_field);

impl Dict {
    fn field<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<(), Unsupported> {
        match value.serialize(ToVariant)?.into_variant() {
            Some(v) => {
                self.map.insert(key, v);
            }
            // A later null replaces an earlier value, as in a JSON object.
            None => {
                self.map.remove(&key);
            }
        }
        Ok(())
    }

    fn finish(self) -> Node {
        match self.variant {
            Some(name) => single(name, Node::Dict(self.map)),
            None => Node::Dict(self.map),
        }
    }
}

impl ser::SerializeMap for Dict {
    type Ok = Node;
    type Error = Unsupported;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unsupported> {
        self.key = Some(key.serialize(KeyText)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Unsupported("a map value without its key".into()))?;
        self.field(key, value)
    }
    fn end(self) -> Result<Node, Unsupported> {
        Ok(self.finish())
    }
}

macro_rules! struct_impl {
    ($trait:ident) => {
        impl ser::$trait for Dict {
            type Ok = Node;
            type Error = Unsupported;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Unsupported> {
                self.field(key.to_owned(), value)
            }
            fn end(self) -> Result<Node, Unsupported> {
                Ok(self.finish())
            }
        }
    };
}

struct_impl!(SerializeStruct);
struct_impl!(SerializeStructVariant);

mod key;
use key::KeyText;

#[cfg(test)]
mod tests;
