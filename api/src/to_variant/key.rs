//! Map keys as text, as JSON has them: strings, characters, integers (in decimal) and unit
//! variants (their name); anything else cannot be a key. Owns only this.

use serde::ser::{self, Impossible, Serialize};

use super::Unsupported;

pub(super) struct KeyText;

fn not_a_key<T>(what: &str) -> Result<T, Unsupported> {
    Err(Unsupported(format!(
        "a map key must be a string, not {what}"
    )))
}

macro_rules! decimal {
    ($($method:ident: $ty:ty),*) => {
        $(fn $method(self, v: $ty) -> Result<String, Unsupported> {
            Ok(v.to_string())
        })*
    };
}

impl ser::Serializer for KeyText {
    type Ok = String;
    type Error = Unsupported;
    type SerializeSeq = Impossible<String, Unsupported>;
    type SerializeTuple = Impossible<String, Unsupported>;
    type SerializeTupleStruct = Impossible<String, Unsupported>;
    type SerializeTupleVariant = Impossible<String, Unsupported>;
    type SerializeMap = Impossible<String, Unsupported>;
    type SerializeStruct = Impossible<String, Unsupported>;
    type SerializeStructVariant = Impossible<String, Unsupported>;

    decimal!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128);

    fn serialize_str(self, v: &str) -> Result<String, Unsupported> {
        Ok(v.to_owned())
    }
    fn serialize_char(self, v: char) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String, Unsupported> {
        Ok(variant.to_owned())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<String, Unsupported> {
        value.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<String, Unsupported> {
        not_a_key("a boolean")
    }
    fn serialize_f32(self, _: f32) -> Result<String, Unsupported> {
        not_a_key("a float")
    }
    fn serialize_f64(self, _: f64) -> Result<String, Unsupported> {
        not_a_key("a float")
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String, Unsupported> {
        not_a_key("bytes")
    }
    fn serialize_none(self) -> Result<String, Unsupported> {
        not_a_key("null")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, Unsupported> {
        not_a_key("an option")
    }
    fn serialize_unit(self) -> Result<String, Unsupported> {
        not_a_key("null")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, Unsupported> {
        not_a_key("null")
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, Unsupported> {
        not_a_key("an enum with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        not_a_key("an array")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Unsupported> {
        not_a_key("an array")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        not_a_key("an array")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        not_a_key("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        not_a_key("an object")
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, Unsupported> {
        not_a_key("an object")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        not_a_key("an enum with data")
    }
}
