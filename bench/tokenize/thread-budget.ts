// Imported first by the benchmark: the Rust tokenizer reads this before its first batch.
// One thread for every arm (JS runs on the main thread only), so arms compare per core.
process.env.TOKENIZERS_PARALLELISM = 'false';
