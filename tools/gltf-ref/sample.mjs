// Samples glTF files the way a three.js application plays them: GLTFLoader
// loads each file, an AnimationMixer plays one animation at a time (once,
// clamped at its end) and the nodes' local transforms and world matrices
// are read at the times asked.  spec/gltf_three_spec.lua writes the
// request, runs this (make gltf-ref) and compares the answer with what the
// module plays.
//
//   node sample.mjs request.json > answer.json
//
// request: [ { "file": path, "times": { "<animation index>": [t, ...] } } ]
// answer:  { "<file>": { "rest": { "<node index>": m16 },
//            "animations": { "<animation index>": { "name": ..., "duration": ...,
//              "times": { "<i>": { "t": t, "nodes": { "<node index>":
//                { "position": [3], "quaternion": [4], "scale": [3], "world": m16 } } } } } } } }
// Nodes are named by their index in the file (three.js renames nodes: it
// makes names unique and drops characters its property paths reserve).
import { readFileSync } from 'node:fs';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { AnimationMixer, LoopOnce } from 'three';

// Node has fetch (GLTFLoader reads data: URIs with it) but no ProgressEvent.
if (typeof globalThis.ProgressEvent === 'undefined') {
  globalThis.ProgressEvent = class ProgressEvent extends Event {
    constructor(type, init = {}) { super(type); Object.assign(this, init); }
  };
}

function load(file) {
  const bytes = readFileSync(file);
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new Promise((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));
}

async function nodesOf(gltf) {
  const n = (gltf.parser.json.nodes || []).length;
  const out = [];
  for (let i = 0; i < n; i++) out.push(await gltf.parser.getDependency('node', i));
  return out;
}

const request = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const answer = {};
for (const { file, times } of request) {
  const entry = { rest: {}, animations: {} };
  {
    const gltf = await load(file);
    const nodes = await nodesOf(gltf);
    gltf.scene.updateMatrixWorld(true);
    nodes.forEach((o, i) => { entry.rest[i] = Array.from(o.matrixWorld.elements); });
  }
  for (const [index, list] of Object.entries(times)) {
    const a = { times: {} };
    list.forEach((t, k) => { a.times[k] = { t, nodes: {} }; });
    for (let k = 0; k < list.length; k++) {
      // a fresh load for each time: every node starts at its rest
      const gltf = await load(file);
      const nodes = await nodesOf(gltf);
      const clip = gltf.animations[Number(index)];
      a.name = clip.name;
      a.duration = clip.duration;
      const mixer = new AnimationMixer(gltf.scene);
      const action = mixer.clipAction(clip);
      action.setLoop(LoopOnce, 1);
      action.clampWhenFinished = true;
      action.play();
      mixer.setTime(list[k]);
      gltf.scene.updateMatrixWorld(true);
      nodes.forEach((o, i) => {
        a.times[k].nodes[i] = {
          position: o.position.toArray(), quaternion: o.quaternion.toArray(), scale: o.scale.toArray(),
          world: Array.from(o.matrixWorld.elements),
        };
      });
    }
    entry.animations[index] = a;
  }
  answer[file] = entry;
}
process.stdout.write(JSON.stringify(answer));
