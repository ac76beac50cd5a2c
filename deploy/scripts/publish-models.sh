#!/bin/sh
# Publishes a Triton model repository (SRC) into the shared repository (DST) that Triton, the
# routers and the batch workers read.
#
#   publish-models.sh SRC DST [INSTANCE_KIND]
#
# - A version directory (`<model>/<N>/`: model.onnx, preprocess.json, tokenizer.json) is
#   immutable once published: an existing one is never overwritten, so a running Triton or router
#   never sees a half-replaced version. It is copied under a temporary name and renamed.
# - Per-model files (config.pbtxt, labels.txt) are replaced atomically after the versions they
#   name are in place, so a config never names a version that is not there yet.
# - INSTANCE_KIND (KIND_CPU, KIND_GPU or KIND_AUTO) rewrites `instance_group` kinds in the
#   published config.pbtxt: the generated models say KIND_CPU, a GPU cluster publishes KIND_GPU.
set -eu

SRC=${1:?usage: publish-models.sh SRC DST [INSTANCE_KIND]}
DST=${2:?usage: publish-models.sh SRC DST [INSTANCE_KIND]}
KIND=${3:-}

case "$KIND" in
  '' | KIND_CPU | KIND_GPU | KIND_AUTO) ;;
  *)
    echo "publish-models: INSTANCE_KIND must be KIND_CPU, KIND_GPU or KIND_AUTO (got '$KIND')" >&2
    exit 2
    ;;
esac

found=0
for model_dir in "$SRC"/*/; do
  [ -f "$model_dir/config.pbtxt" ] || continue
  found=1
  model=$(basename "$model_dir")
  mkdir -p "$DST/$model"
  for version_dir in "$model_dir"*/; do
    [ -d "$version_dir" ] || continue
    version=$(basename "$version_dir")
    if [ -e "$DST/$model/$version" ]; then
      echo "publish-models: $model/$version already published, kept"
      continue
    fi
    rm -rf "$DST/$model/.$version.tmp"
    cp -R "$version_dir" "$DST/$model/.$version.tmp"
    mv "$DST/$model/.$version.tmp" "$DST/$model/$version"
    echo "publish-models: $model/$version published"
  done
  for file in "$model_dir"*; do
    [ -f "$file" ] || continue
    name=$(basename "$file")
    cp "$file" "$DST/$model/.$name.tmp"
    if [ "$name" = config.pbtxt ] && [ -n "$KIND" ]; then
      sed -i "s/kind: KIND_[A-Z]*/kind: $KIND/" "$DST/$model/.$name.tmp"
    fi
    mv "$DST/$model/.$name.tmp" "$DST/$model/$name"
  done
done

if [ "$found" -eq 0 ]; then
  echo "publish-models: no model (a directory with config.pbtxt) under $SRC" >&2
  exit 1
fi
