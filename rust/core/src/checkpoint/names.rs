//! Which files of a folder are the checkpoint's weights, from their names alone: the
//! `.safetensors` files and their index, or, when a folder has neither, its torch files
//! (`pytorch_model*.bin`, `.pt`, `.pth`, `.ckpt`) and `pytorch_model.bin.index.json`, as
//! transformers and the engines pick them. A Trainer's side pickles (`training_args.bin`,
//! `optimizer.pt`, ...) are not weights: they are left out, and a PT019 finding names them.
//! One rule for local folders, Hub listings and cluster nodes (exported to Python).

use crate::torch::has_torch_extension;
use std::path::Path;

/// The safetensors index transformers looks for first.
pub const SAFETENSORS_INDEX: &str = "model.safetensors.index.json";
/// The torch index transformers looks for first.
pub const TORCH_INDEX: &str = "pytorch_model.bin.index.json";

/// What a folder's names make of it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Choice {
    /// The weights files, sorted.
    pub files: Vec<String>,
    /// The index, when there is one.
    pub index: Option<String>,
    /// Torch files left out as a trainer's side files (not weights).
    pub skipped: Vec<String>,
}

/// True for the pickles a training run writes beside its weights (the HF Trainer's
/// `training_args.bin`, optimizer, scheduler, scaler and RNG states; DeepSpeed's optimizer
/// shards).
pub fn is_side_file(name: &str) -> bool {
    const EXACT: [&str; 6] = [
        "training_args.bin",
        "optimizer.pt",
        "optimizer.bin",
        "scheduler.pt",
        "scaler.pt",
        "trainer_state.pt",
    ];
    EXACT.contains(&name)
        || (name.starts_with("rng_state") && name.ends_with(".pth"))
        || name.ends_with("_optim_states.pt")
}

/// True for a torch index name (`pytorch_model.bin.index.json`, `x.pt.index.json`).
pub fn is_torch_index(name: &str) -> bool {
    name.strip_suffix(".index.json")
        .is_some_and(|stem| has_torch_extension(Path::new(stem)))
}

fn index_among(names: &[&str], preferred: &str, matches: impl Fn(&str) -> bool) -> Option<String> {
    if names.contains(&preferred) {
        return Some(preferred.to_owned());
    }
    let found: Vec<&&str> = names.iter().filter(|n| matches(n)).collect();
    (found.len() == 1).then(|| (*found[0]).to_owned())
}

/// The weights among the file names of one folder.
pub fn choose(names: &[&str]) -> Choice {
    let mut choice = Choice {
        files: names
            .iter()
            .filter(|n| n.ends_with(".safetensors"))
            .map(|n| (*n).to_owned())
            .collect(),
        index: index_among(names, SAFETENSORS_INDEX, |n| {
            n.ends_with(".safetensors.index.json")
        }),
        skipped: Vec::new(),
    };
    if choice.files.is_empty() && choice.index.is_none() {
        choice.index = index_among(names, TORCH_INDEX, is_torch_index);
        for name in names.iter().filter(|n| has_torch_extension(Path::new(n))) {
            if is_side_file(name) {
                choice.skipped.push((*name).to_owned());
            } else {
                choice.files.push((*name).to_owned());
            }
        }
    }
    choice.files.sort();
    choice.skipped.sort();
    choice
}

/// The weights files beside the index `index` (of the index's own kind).
pub fn files_for_index(index: &str, names: &[&str]) -> Vec<String> {
    let torch = is_torch_index(index);
    let mut files: Vec<String> = names
        .iter()
        .filter(|n| {
            if torch {
                has_torch_extension(Path::new(n)) && !is_side_file(n)
            } else {
                n.ends_with(".safetensors")
            }
        })
        .map(|n| (*n).to_owned())
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safetensors_win_and_torch_files_count_only_without_them() {
        let both = choose(&["pytorch_model.bin", "model.safetensors", "config.json"]);
        assert_eq!(both.files, vec!["model.safetensors"]);
        let torch = choose(&[
            "pytorch_model-00002-of-00002.bin",
            "pytorch_model-00001-of-00002.bin",
            TORCH_INDEX,
            "training_args.bin",
            "rng_state_0.pth",
            "config.json",
        ]);
        assert_eq!(
            torch.files,
            vec![
                "pytorch_model-00001-of-00002.bin",
                "pytorch_model-00002-of-00002.bin"
            ]
        );
        assert_eq!(torch.index.as_deref(), Some(TORCH_INDEX));
        assert_eq!(torch.skipped, vec!["rng_state_0.pth", "training_args.bin"]);
        assert_eq!(choose(&["drafter.pt"]).files, vec!["drafter.pt"]);
        assert_eq!(choose(&["config.json"]), Choice::default());
        assert_eq!(
            choose(&["x.safetensors.index.json"]).index.as_deref(),
            Some("x.safetensors.index.json")
        );
    }

    #[test]
    fn an_index_names_files_of_its_kind() {
        let names = ["a.bin", "b.safetensors", "optimizer.pt"];
        assert_eq!(files_for_index(TORCH_INDEX, &names), vec!["a.bin"]);
        assert_eq!(
            files_for_index(SAFETENSORS_INDEX, &names),
            vec!["b.safetensors"]
        );
        assert!(is_torch_index("model.pt.index.json"));
        assert!(!is_torch_index("model.safetensors.index.json"));
    }
}
