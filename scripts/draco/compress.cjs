// Writes a Draco-compressed copy of a glTF binary with glTF-Transform and Google's encoder
// (draco3dgltf), as web avatar pipelines do: the tests load both copies and compare them.
// Usage: node compress.cjs IN.glb OUT.glb [edgebreaker|sequential]
// Modules resolve through NODE_PATH (scripts/setup.sh's npc_draco_encoder sets it up).
"use strict";
const fs = require("fs");
const { NodeIO } = require("@gltf-transform/core");
const { ALL_EXTENSIONS, KHRDracoMeshCompression } = require("@gltf-transform/extensions");
const draco3d = require("draco3dgltf");
const { MeshoptDecoder } = require("meshoptimizer");

async function main() {
  const [input, output, method = "edgebreaker"] = process.argv.slice(2);
  if (!input || !output) {
    console.error("usage: node compress.cjs IN.glb OUT.glb [edgebreaker|sequential]");
    process.exit(2);
  }
  await MeshoptDecoder.ready;
  const io = new NodeIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({
      "draco3d.decoder": await draco3d.createDecoderModule(),
      "draco3d.encoder": await draco3d.createEncoderModule(),
      "meshopt.decoder": MeshoptDecoder,
    });
  const document = await io.read(input);
  // Meshopt-compressed input is written out with Draco alone.
  for (const extension of document.getRoot().listExtensionsUsed()) {
    if (extension.extensionName === "EXT_meshopt_compression") extension.dispose();
  }
  document
    .createExtension(KHRDracoMeshCompression)
    .setRequired(true)
    .setEncoderOptions({
      method:
        method === "sequential"
          ? KHRDracoMeshCompression.EncoderMethod.SEQUENTIAL
          : KHRDracoMeshCompression.EncoderMethod.EDGEBREAKER,
    });
  fs.writeFileSync(output, await io.writeBinary(document));
}

main().catch((e) => {
  console.error(`draco compress: ${e.message}`);
  process.exit(1);
});
