//! The globals a pickle may name: exactly those torch's own `weights_only` unpickler resolves
//! (`allowed_globals.txt`, generated from torch 2.15 by `tools/torch_truth/allowed_globals.py`),
//! after the same Python 2 module and name mappings. A name is only ever looked up in that
//! table: nothing is imported, and any other name stops the machine (a security finding).
//!
//! Of the allowed globals, the ones a state dict is made of are interpreted (the tensor rebuild
//! functions, `OrderedDict`, the storage classes and dtypes, `torch.Size`, ...); calling any
//! other allowed global gives an opaque value the reader reports but does not read. Every call
//! of an allowed function is held to the positional arguments its signature takes (the table's
//! `arity` lines, from `inspect.signature`), as torch's unpickler calls it with `REDUCE`'s tuple.

use crate::torch::dtypes::{self, TorchDtype};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::OnceLock;

const TABLE_TEXT: &str = include_str!("allowed_globals.txt");

/// A storage class as a persistent id names it.
#[derive(Debug, Clone, PartialEq)]
pub enum StorageClass {
    /// A legacy typed storage class (`torch.FloatStorage`, `torch.cuda.HalfStorage`).
    Typed(TorchDtype),
    /// `torch.storage.UntypedStorage`: bytes, read as `uint8`.
    Untyped,
    /// `torch.storage.TypedStorage`, the class itself (it has no dtype of its own).
    TypedClass,
}

/// An allowed global, resolved by name.
#[derive(Debug, Clone, PartialEq)]
pub enum Global {
    /// `collections.OrderedDict`.
    OrderedDict,
    /// `collections.Counter`.
    Counter,
    /// `builtins.set`.
    Set,
    /// `_codecs.encode` (how protocol 2 spells a bytes object).
    Encode,
    /// `torch.Size`.
    Size,
    /// `torch.nn.parameter.Parameter`.
    Parameter,
    /// `torch.Tensor`.
    Tensor,
    /// `torch._utils._rebuild_tensor`.
    RebuildTensor,
    /// `torch._utils._rebuild_tensor_v2`.
    RebuildTensorV2,
    /// `torch._utils._rebuild_tensor_v3`.
    RebuildTensorV3,
    /// `torch._utils._rebuild_parameter`.
    RebuildParameter,
    /// `torch._utils._rebuild_parameter_with_state`.
    RebuildParameterWithState,
    /// `torch._tensor._rebuild_from_type_v2`.
    RebuildFromTypeV2,
    /// A storage class.
    Storage(StorageClass),
    /// A dtype (`torch.float32`).
    Dtype(TorchDtype),
    /// Any other allowed global (quantized or sparse rebuilds, `torch.device`, tensor classes).
    Other(Rc<str>),
}

impl Global {
    /// The global's full name as torch spells it, for messages.
    pub fn name(&self) -> String {
        match self {
            Global::OrderedDict => "collections.OrderedDict".into(),
            Global::Counter => "collections.Counter".into(),
            Global::Set => "builtins.set".into(),
            Global::Encode => "_codecs.encode".into(),
            Global::Size => "torch.Size".into(),
            Global::Parameter => "torch.nn.parameter.Parameter".into(),
            Global::Tensor => "torch.Tensor".into(),
            Global::RebuildTensor => "torch._utils._rebuild_tensor".into(),
            Global::RebuildTensorV2 => "torch._utils._rebuild_tensor_v2".into(),
            Global::RebuildTensorV3 => "torch._utils._rebuild_tensor_v3".into(),
            Global::RebuildParameter => "torch._utils._rebuild_parameter".into(),
            Global::RebuildParameterWithState => {
                "torch._utils._rebuild_parameter_with_state".into()
            }
            Global::RebuildFromTypeV2 => "torch._tensor._rebuild_from_type_v2".into(),
            Global::Storage(StorageClass::Untyped) => "torch.storage.UntypedStorage".into(),
            Global::Storage(StorageClass::TypedClass) => "torch.storage.TypedStorage".into(),
            Global::Storage(StorageClass::Typed(d)) => format!("torch storage of {}", d.name),
            Global::Dtype(d) => format!("torch.{}", d.name),
            Global::Other(name) => name.to_string(),
        }
    }

    /// The fewest and the most positional arguments the global takes when it is a function
    /// (`None` as the most: `*args`); `None` for classes and values.
    pub fn arity(&self) -> Option<(usize, Option<usize>)> {
        table().arities.get(self.name().as_str()).copied()
    }
}

/// Why a name does not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// The module is one torch blocks outright (`os`, `sys`, `posix`, `nt`).
    Blocked,
    /// The name is not on the allowlist.
    NotAllowed,
}

struct Table {
    allowed: HashSet<&'static str>,
    blocked: HashSet<&'static str>,
    modules: HashMap<&'static str, &'static str>,
    names: HashMap<(&'static str, &'static str), (&'static str, &'static str)>,
    arities: HashMap<&'static str, (usize, Option<usize>)>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Table {
            allowed: HashSet::new(),
            blocked: HashSet::new(),
            modules: HashMap::new(),
            names: HashMap::new(),
            arities: HashMap::new(),
        };
        for line in TABLE_TEXT.lines().filter(|l| !l.starts_with('#')) {
            let words: Vec<&'static str> = line.split(' ').collect();
            match words.as_slice() {
                ["allow", name] => {
                    t.allowed.insert(name);
                }
                ["block", module] => {
                    t.blocked.insert(module);
                }
                ["module", old, new] => {
                    t.modules.insert(old, new);
                }
                ["name", a, b, c, d] => {
                    t.names.insert((a, b), (c, d));
                }
                ["arity", name, least, most] => {
                    if let Ok(least) = least.parse() {
                        t.arities.insert(name, (least, most.parse().ok()));
                    }
                }
                _ => {}
            }
        }
        t
    })
}

/// `(module, name)` after torch's Python 2 mappings (`__builtin__` -> `builtins`, ...).
pub fn mapped(module: &str, name: &str) -> (String, String) {
    let t = table();
    if let Some((m, n)) = t.names.get(&(module, name)) {
        return ((*m).to_owned(), (*n).to_owned());
    }
    let module = t.modules.get(module).copied().unwrap_or(module);
    (module.to_owned(), name.to_owned())
}

/// Resolves the already-mapped `module.name` as torch's `weights_only` unpickler does.
pub fn resolve(module: &str, name: &str) -> Result<Global, Unresolved> {
    let t = table();
    if t.blocked.contains(module) {
        return Err(Unresolved::Blocked);
    }
    let full = format!("{module}.{name}");
    if !t.allowed.contains(full.as_str()) {
        return Err(Unresolved::NotAllowed);
    }
    Ok(interpret(&full, module, name))
}

fn interpret(full: &str, module: &str, name: &str) -> Global {
    match full {
        "collections.OrderedDict" => return Global::OrderedDict,
        "collections.Counter" => return Global::Counter,
        "builtins.set" => return Global::Set,
        "_codecs.encode" => return Global::Encode,
        "torch.Size" => return Global::Size,
        "torch.Tensor" => return Global::Tensor,
        "torch.nn.parameter.Parameter" => return Global::Parameter,
        "torch._utils._rebuild_tensor" => return Global::RebuildTensor,
        "torch._utils._rebuild_tensor_v2" => return Global::RebuildTensorV2,
        "torch._utils._rebuild_tensor_v3" => return Global::RebuildTensorV3,
        "torch._utils._rebuild_parameter" => return Global::RebuildParameter,
        "torch._utils._rebuild_parameter_with_state" => return Global::RebuildParameterWithState,
        "torch._tensor._rebuild_from_type_v2" => return Global::RebuildFromTypeV2,
        "torch.storage.UntypedStorage" => return Global::Storage(StorageClass::Untyped),
        "torch.storage.TypedStorage" => return Global::Storage(StorageClass::TypedClass),
        _ => {}
    }
    if module == "torch" || module == "torch.cuda" {
        if let Some(dtype) = dtypes::by_storage_class(name) {
            return Global::Storage(StorageClass::Typed(dtype));
        }
    }
    if module == "torch" {
        if let Some(dtype) = dtypes::by_name(name) {
            return Global::Dtype(dtype);
        }
    }
    Global::Other(Rc::from(full))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_dict_globals_resolve_and_nothing_else_does() {
        assert_eq!(
            resolve("torch._utils", "_rebuild_tensor_v2"),
            Ok(Global::RebuildTensorV2)
        );
        assert_eq!(
            resolve("collections", "OrderedDict"),
            Ok(Global::OrderedDict)
        );
        assert!(matches!(
            resolve("torch", "BFloat16Storage"),
            Ok(Global::Storage(StorageClass::Typed(d))) if d.name == "bfloat16"
        ));
        assert!(matches!(
            resolve("torch.cuda", "FloatStorage"),
            Ok(Global::Storage(StorageClass::Typed(d))) if d.name == "float32"
        ));
        assert!(matches!(
            resolve("torch", "float8_e4m3fn"),
            Ok(Global::Dtype(_))
        ));
        assert!(matches!(resolve("torch", "device"), Ok(Global::Other(_))));
        assert_eq!(resolve("os", "system"), Err(Unresolved::Blocked));
        assert_eq!(resolve("posix", "system"), Err(Unresolved::Blocked));
        for (m, n) in [
            ("builtins", "exec"),
            ("builtins", "eval"),
            ("subprocess", "Popen"),
            ("torch", "load"),
            ("torch._utils", "_rebuild_tensor_v4"),
            ("collections", "defaultdict"),
            ("numpy.core.multiarray", "_reconstruct"),
        ] {
            assert_eq!(resolve(m, n), Err(Unresolved::NotAllowed), "{m}.{n}");
        }
    }

    #[test]
    fn functions_carry_the_arguments_their_signatures_take() {
        let qtensor = resolve("torch._utils", "_rebuild_qtensor").unwrap();
        assert_eq!(qtensor.arity(), Some((7, Some(7))));
        let v2 = resolve("torch._utils", "_rebuild_tensor_v2").unwrap();
        assert_eq!(v2.arity(), Some((6, Some(7))));
        assert_eq!(Global::OrderedDict.arity(), None);
    }

    #[test]
    fn python2_names_are_mapped_first() {
        assert_eq!(
            mapped("__builtin__", "set"),
            ("builtins".into(), "set".into())
        );
        assert_eq!(resolve("builtins", "set"), Ok(Global::Set));
        assert_eq!(
            mapped("__builtin__", "reduce"),
            ("functools".into(), "reduce".into())
        );
        assert_eq!(mapped("torch", "Size"), ("torch".into(), "Size".into()));
    }

    #[test]
    fn the_table_is_torchs_whole_list() {
        let t = table();
        assert_eq!(t.allowed.len(), 144);
        assert_eq!(t.blocked.len(), 4);
        assert!(t.arities.keys().all(|name| t.allowed.contains(name)));
        assert!(TABLE_TEXT.starts_with("# torch 2.15"));
    }
}
