//! torch's element types as a pickle names them (`torch.float32`, the storage class
//! `FloatStorage`), with the element size torch computes for each and the safetensors dtype this
//! reader maps it to (none for the types it cannot read: quantized, complex128, sub-byte).

use crate::Dtype;

/// One torch dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TorchDtype {
    /// The name after `torch.` (`"float32"`).
    pub name: &'static str,
    /// The dtype this reader reads it as, when it reads it.
    pub dtype: Option<Dtype>,
    /// `torch._utils._element_size(dtype)`; `None` where torch itself raises (`bits8`, `int4`).
    pub elsize: Option<u64>,
}

/// `(name, legacy storage class, dtype, element size)` for every dtype torch 2.15 allows.
const TABLE: [(&str, &str, Option<Dtype>, Option<u64>); 47] = [
    ("bfloat16", "BFloat16Storage", Some(Dtype::Bf16), Some(2)),
    ("bool", "BoolStorage", Some(Dtype::Bool), Some(1)),
    ("uint8", "ByteStorage", Some(Dtype::U8), Some(1)),
    ("int8", "CharStorage", Some(Dtype::I8), Some(1)),
    ("complex128", "ComplexDoubleStorage", None, Some(16)),
    (
        "complex64",
        "ComplexFloatStorage",
        Some(Dtype::C64),
        Some(8),
    ),
    ("float64", "DoubleStorage", Some(Dtype::F64), Some(8)),
    ("float32", "FloatStorage", Some(Dtype::F32), Some(4)),
    ("float16", "HalfStorage", Some(Dtype::F16), Some(2)),
    ("int32", "IntStorage", Some(Dtype::I32), Some(4)),
    ("int64", "LongStorage", Some(Dtype::I64), Some(8)),
    ("qint32", "QInt32Storage", None, Some(4)),
    ("qint8", "QInt8Storage", None, Some(1)),
    ("quint2x4", "QUInt2x4Storage", None, Some(1)),
    ("quint4x2", "QUInt4x2Storage", None, Some(1)),
    ("quint8", "QUInt8Storage", None, Some(1)),
    ("int16", "ShortStorage", Some(Dtype::I16), Some(2)),
    ("uint16", "", Some(Dtype::U16), Some(2)),
    ("uint32", "", Some(Dtype::U32), Some(4)),
    ("uint64", "", Some(Dtype::U64), Some(8)),
    ("float8_e4m3fn", "", Some(Dtype::F8E4M3), Some(1)),
    ("float8_e5m2", "", Some(Dtype::F8E5M2), Some(1)),
    ("float8_e4m3fnuz", "", Some(Dtype::F8E4M3Fnuz), Some(1)),
    ("float8_e5m2fnuz", "", Some(Dtype::F8E5M2Fnuz), Some(1)),
    ("float8_e8m0fnu", "", Some(Dtype::F8E8M0), Some(1)),
    ("complex32", "", None, Some(4)),
    ("bcomplex32", "", None, Some(4)),
    ("float4_e2m1fn_x2", "", None, Some(1)),
    ("bits8", "", None, None),
    ("bits16", "", None, None),
    ("bits1x8", "", None, None),
    ("bits2x4", "", None, None),
    ("bits4x2", "", None, None),
    ("int1", "", None, None),
    ("int2", "", None, None),
    ("int3", "", None, None),
    ("int4", "", None, None),
    ("int5", "", None, None),
    ("int6", "", None, None),
    ("int7", "", None, None),
    ("uint1", "", None, None),
    ("uint2", "", None, None),
    ("uint3", "", None, None),
    ("uint4", "", None, None),
    ("uint5", "", None, None),
    ("uint6", "", None, None),
    ("uint7", "", None, None),
];

fn entry(row: &(&'static str, &'static str, Option<Dtype>, Option<u64>)) -> TorchDtype {
    TorchDtype {
        name: row.0,
        dtype: row.2,
        elsize: row.3,
    }
}

/// The dtype `torch.<name>`.
pub fn by_name(name: &str) -> Option<TorchDtype> {
    TABLE.iter().find(|row| row.0 == name).map(entry)
}

/// The dtype of the legacy storage class `<class>` (`FloatStorage`).
pub fn by_storage_class(class: &str) -> Option<TorchDtype> {
    TABLE
        .iter()
        .find(|row| !row.1.is_empty() && row.1 == class)
        .map(entry)
}

/// `torch.uint8`: what an `UntypedStorage` holds.
pub fn untyped() -> TorchDtype {
    entry(&TABLE[2])
}

/// True for the dtypes a tensor may `require_grad` with (floating point and complex).
pub fn can_require_grad(dtype: &TorchDtype) -> bool {
    dtype.name.starts_with("float")
        || dtype.name.starts_with("complex")
        || matches!(dtype.name, "bfloat16" | "bcomplex32")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_storage_classes_agree() {
        assert_eq!(by_name("float32").unwrap().dtype, Some(Dtype::F32));
        assert_eq!(by_storage_class("FloatStorage"), by_name("float32"));
        assert_eq!(by_storage_class("BFloat16Storage").unwrap().elsize, Some(2));
        assert_eq!(by_name("uint7").unwrap().elsize, None);
        assert!(by_name("float128").is_none());
        assert!(by_storage_class("").is_none());
        assert_eq!(untyped().name, "uint8");
        assert!(can_require_grad(&by_name("bfloat16").unwrap()));
        assert!(!can_require_grad(&by_name("int64").unwrap()));
    }

    #[test]
    fn every_readable_dtype_has_the_element_size_of_its_safetensors_dtype() {
        for row in &TABLE {
            if let (Some(dtype), Some(size)) = (row.2, row.3) {
                assert_eq!(dtype.size(), Some(size), "{}", row.0);
            }
        }
    }
}
