// tools/skin-reference/reference.mjs: three.js's skinned vertex positions of
// CesiumMan, Fox and RiggedFigure (glTF sample models, ../shared/data/gltf,
// the .glb of glTF-Binary), written to spec/data/skinned_<model>_three.json
// for spec/skin_vertices_spec.lua.
//
//   make skin-reference   (cd tools/skin-reference && npm install && npm run reference)
//
// GLTFLoader.parse reads each .glb from its bytes (no browser, no network;
// its images are dropped first: Node cannot decode them, and skinning does
// not read them).  Each clip plays on an AnimationMixer (looping, as a
// three.js application plays it) at 5 times: 0 and 0.2, 0.45, 0.7 and 0.95
// of its duration.  At each, after mixer.setTime(t) and
// scene.updateMatrixWorld(true), every SkinnedMesh's getVertexPosition(i)
// for every k-th vertex.
//
// The space, exactly: GLTFLoader binds each skinned mesh with bindMatrix =
// identity (mesh.bind(skeleton, identity)), and a SkinnedMesh in
// AttachedBindMode sets bindMatrixInverse to the inverse of its
// matrixWorld, so getVertexPosition(i) = matrixWorld^-1 * sum_j w_j *
// (bone_j.matrixWorld * boneInverse_j) * p: the mesh's local space.  Each
// position is multiplied by the mesh's matrixWorld here, giving
// sum_j w_j * (bone_j.matrixWorld * boneInverse_j) * p: the scene's world
// space, where the glTF specification ("Skins") places a skinned vertex
// (the transform of the node holding the mesh ignored: the joints place it).
// That is what anim.skin_vertices gives with the joints' matrices world x
// inverse bind.  The numbers are rounded to 9 significant digits.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";

if (typeof globalThis.ProgressEvent === "undefined") {
  globalThis.ProgressEvent = class ProgressEvent extends Event {
    constructor(type, init = {}) { super(type); Object.assign(this, init); }
  };
}

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const shared = process.env.ANIM_SHARED || resolve(root, "../shared");

const MODELS = [
  { name: "CesiumMan", file: "CesiumMan/glTF-Binary/CesiumMan.glb", out: "skinned_cesium_man_three.json" },
  { name: "Fox", file: "Fox/glTF-Binary/Fox.glb", out: "skinned_fox_three.json" },
  { name: "RiggedFigure", file: "RiggedFigure/glTF-Binary/RiggedFigure.glb", out: "skinned_rigged_figure_three.json" },
];
const FRACTIONS = [0, 0.2, 0.45, 0.7, 0.95];
// the numbers a file may hold: about 300 KB at ~11 bytes a number
const MAX_NUMBERS = 24000;

// The .glb with its JSON's images, textures and materials' textures taken out.
function withoutImages(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jlen = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jlen)));
  delete json.images;
  delete json.textures;
  delete json.samplers;
  for (const m of json.materials || []) {
    if (m.pbrMetallicRoughness) delete m.pbrMetallicRoughness.baseColorTexture;
    delete m.normalTexture;
    delete m.emissiveTexture;
    delete m.occlusionTexture;
  }
  let text = JSON.stringify(json);
  while (text.length % 4) text += " ";
  const jbytes = new TextEncoder().encode(text);
  const rest = bytes.subarray(20 + jlen);
  const out = new Uint8Array(12 + 8 + jbytes.length + rest.length);
  const ov = new DataView(out.buffer);
  out.set(bytes.subarray(0, 12));
  ov.setUint32(8, out.length, true);
  ov.setUint32(12, jbytes.length, true);
  ov.setUint32(16, 0x4e4f534a, true);
  out.set(jbytes, 20);
  out.set(rest, 20 + jbytes.length);
  return out.buffer;
}

function load(file) {
  const data = withoutImages(readFileSync(file));
  return new Promise((ok, fail) => new GLTFLoader().parse(data, "", ok, fail));
}

const round = (x) => Number(x.toPrecision(9));

for (const model of MODELS) {
  const gltf = await load(join(shared, "data/gltf", model.file));
  const meshes = [];
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) meshes.push(o); });
  const nverts = meshes.reduce((s, m) => s + m.geometry.attributes.position.count, 0);
  const every = Math.max(1, Math.ceil((nverts * 3 * FRACTIONS.length * gltf.animations.length) / MAX_NUMBERS));
  const clips = [];
  for (let ci = 0; ci < gltf.animations.length; ci++) {
    // a fresh load for each clip: every node starts at its rest (a node
    // the clip does not animate stays there, as on a new animator)
    const fresh = await load(join(shared, "data/gltf", model.file));
    const skinned = [];
    fresh.scene.traverse((o) => { if (o.isSkinnedMesh) skinned.push(o); });
    const clip = fresh.animations[ci];
    const mixer = new THREE.AnimationMixer(fresh.scene);
    mixer.clipAction(clip).play();
    const samples = FRACTIONS.map((f) => {
      const t = f * clip.duration;
      mixer.setTime(t);
      fresh.scene.updateMatrixWorld(true);
      const positions = skinned.map((mesh) => {
        const out = [];
        const v = new THREE.Vector3();
        for (let i = 0; i < mesh.geometry.attributes.position.count; i += every) {
          mesh.getVertexPosition(i, v);
          v.applyMatrix4(mesh.matrixWorld);
          out.push(round(v.x), round(v.y), round(v.z));
        }
        return out;
      });
      return { time: t, positions };
    });
    clips.push({ index: ci, name: clip.name, duration: clip.duration, samples });
  }
  gltf.scene.updateMatrixWorld(true);
  // the model's size: the diagonal of the bounding box of its meshes' bind positions in world space
  const box = new THREE.Box3();
  for (const mesh of meshes) {
    const p = mesh.geometry.attributes.position;
    const v = new THREE.Vector3();
    for (let i = 0; i < p.count; i++) box.expandByPoint(v.fromBufferAttribute(p, i).applyMatrix4(mesh.matrixWorld));
  }
  const out = {
    source: model.file,
    three: THREE.REVISION,
    space: "world: mesh.matrixWorld * SkinnedMesh.getVertexPosition(i), i.e. sum_j w_j * bone_j.matrixWorld * boneInverse_j * p (bindMatrix is the identity in GLTFLoader): glTF's skinned vertex, the mesh node's transform not applied",
    note: "AnimationMixer (looping action) at time t, then scene.updateMatrixWorld(true); vertices 0, every, 2*every, ... of each SkinnedMesh in scene.traverse order",
    every,
    meshes: meshes.map((m) => ({ name: m.name, count: m.geometry.attributes.position.count })),
    bind_box_diagonal: box.min.distanceTo(box.max),
    clips,
  };
  const text = JSON.stringify(out) + "\n";
  writeFileSync(join(root, "spec/data", model.out), text);
  console.log(`wrote spec/data/${model.out}: ${clips.length} clips, every ${every}th of ${nverts} vertices, ${text.length} bytes, three r${THREE.REVISION}`);
}
