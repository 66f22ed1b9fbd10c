// tools/morph-reference/reference.mjs: what three.js plays for the morph
// target weights of AnimatedMorphCube (glTF sample model, CC0), written to
// spec/data/animated_morph_cube_three.json for spec/gltf_morph_spec.lua.
//
//   cd tools/morph-reference && npm install && npm run reference
//
// The model's JSON and its .bin are read from ../shared/data/gltf (or
// ANIM_SHARED/data/gltf); GLTFLoader.parse gets the buffer as a data URI,
// so no network and no browser is needed.  The animation plays on an
// AnimationMixer; after mixer.setTime(t), mesh.morphTargetInfluences is
// what three.js would draw with at time t.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";

// FileLoader reports progress with the browser's ProgressEvent: Node's Event does
if (typeof globalThis.ProgressEvent === "undefined") {
  globalThis.ProgressEvent = class extends Event {
    constructor(type, init = {}) {
      super(type);
      this.lengthComputable = !!init.lengthComputable;
      this.loaded = init.loaded || 0;
      this.total = init.total || 0;
    }
  };
}

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const shared = process.env.ANIM_SHARED || resolve(root, "../shared");
const dir = join(shared, "data/gltf/AnimatedMorphCube/glTF");
const gltf = JSON.parse(readFileSync(join(dir, "AnimatedMorphCube.gltf"), "utf8"));
const bin = readFileSync(join(dir, gltf.buffers[0].uri));
gltf.buffers[0].uri = "data:application/octet-stream;base64," + bin.toString("base64");

// times: the keys' own, the middle of every segment and a few outside
const TIMES = [0, 0.1, 0.25, 0.5, 0.75, 1, 1.0333, 1.5, 2, 2.5, 2.75, 3, 3.3, 3.9, 4.1, 4.19999743, 4.5];

const loader = new GLTFLoader();
loader.parse(JSON.stringify(gltf), "", (result) => {
  const scene = result.scene;
  let mesh = null;
  scene.traverse((o) => { if (o.isMesh && o.morphTargetInfluences) mesh = o; });
  const clip = result.animations[0];
  const mixer = new THREE.AnimationMixer(scene);
  const action = mixer.clipAction(clip);
  // once and clamped at the end: the sample of a clip, not a loop
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  const samples = TIMES.map((t) => {
    // (a finished LoopOnce action is paused: each time from a fresh start)
    action.reset().play();
    mixer.setTime(t);
    return { time: t, weights: Array.from(mesh.morphTargetInfluences) };
  });
  const out = {
    source: "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
    animation: clip.name,
    node: result.parser.json.nodes[0].name,
    three: THREE.REVISION,
    note: "mesh.morphTargetInfluences after AnimationMixer.setTime(t); three.js keeps the keys as float32 (the .bin holds float32) and interpolates them in doubles (the mixer's Float64Array)",
    samples,
  };
  writeFileSync(join(root, "spec/data/animated_morph_cube_three.json"), JSON.stringify(out, null, 1) + "\n");
  console.log(`wrote spec/data/animated_morph_cube_three.json: ${samples.length} samples, three r${THREE.REVISION}`);
}, (err) => { console.error(err); process.exit(1); });
