// tools/dragonbones-reference/reference.mjs: DragonBones' own MIT runtime
// (npm @cocos/dragonbones-js 1.0.2: the Cocos fork of DragonBonesJS 5.7,
// the engine-free core of the official runtime) playing the skeletons of
// spec/fixtures/dragonbones, written to spec/data/dragonbones_<name>.json
// for spec/dragonbones_spec.lua.
//
//   make dragonbones-reference     (./run installs the package into a cache
//                                   outside the tree and runs this)
//
// Headless: the runtime's factory, armature and slot are abstract over the
// display engine; the classes below implement the display hooks as no-ops
// (no canvas, no textures) -- the bones, slots, timelines and constraints
// are the runtime's own code.  Each armature of a file is built
// (factory.buildArmature), its setup pose read, then each animation
// played from its start with no fade (animation.gotoAndPlayByTime(name, 0):
// fadeInTime 0, the animation's own playTimes) and the armature advanced
// once by t (armature.advanceTime(t)).  buildArmature has advanced the
// armature once already, and the runtime applies an IK constraint again on
// each update to bones no timeline moved since (Bone.update runs the
// constraint; updateByConstraint recomposes only dirty bones): a weight
// below 1 would count twice.  So every bone is made dirty first
// (armature.invalidUpdate()): the pose of a frame, as the runtime gives
// it whenever the animation moves the bones.
//
// How the runtime samples (read in TimelineState.update and
// TweenTimelineState._onUpdateFrame): the key frame is found per frame
// (floor(time · frameRate)), the tween progress from the exact time
// ((time − key time) / key duration), so between key frames the runtime is
// exact at any time.  The 10 times are frame instants k/frameRate with
// k = floor(i · frames / 10), i = 0..9 (the fixtures' frame rate is 16:
// k/16 is exact in binary, so the frame the runtime finds is the frame
// meant, also at a step's key).  Two things of the runtime are not exact,
// and the spec says so where it compares: a `curve` is sampled once per
// frame of its segment plus one (ObjectDataParser._samplingEasingCurve,
// bisection to 1e-4 in the curve's parameter, stored as integers of 1e-4)
// and read between the samples linearly
// (TweenTimelineState._getEasingCurveValue); and frame values are stored
// as 32-bit floats (frameFloatArray), colours as integer percents.
//
// Written per sample: every bone's globalTransformMatrix as the runtime
// gives it, [a, b, c, d, tx, ty] in DragonBones' (Flash's) order -- x' =
// a·x + c·y + tx, y' = b·x + d·y + ty, y down -- and every slot's
// displayIndex, its colour transform [rM, gM, bM, aM, rO, gO, bO, aO]
// (multipliers 0..1, offsets 0..255) and the draw order (slot names by
// their zOrder).  Numbers rounded to 12 significant digits.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const cache = process.env.ANIM_DRAGONBONES_CACHE;
if (!cache) {
  console.error("reference.mjs: run it through tools/dragonbones-reference/run (ANIM_DRAGONBONES_CACHE unset)");
  process.exit(1);
}
const runtimePath = join(cache, "node_modules/@cocos/dragonbones-js/out/dragonBones.js");
const DB = await import(pathToFileURL(runtimePath).href);
const pkg = JSON.parse(readFileSync(join(cache, "node_modules/@cocos/dragonbones-js/package.json"), "utf8"));

// The Cocos fork sets DragonBones.yDown = false (Cocos draws y up) and then
// flips every armature's y (Bone._updateGlobalTransformMatrix: flipY =
// armature.flipY === yDown); upstream DragonBonesJS keeps the data's own
// axes, y down (yDown = true), and so does the module: set it back.
DB.DragonBones.yDown = true;

// The runtime says hello on the console when its first DragonBones object
// is made; keep the output to what this script says.
const info = console.info;
console.info = () => {};

const SKELETONS = [
  { name: "hero", ske: "spec/fixtures/dragonbones/hero_ske.json", tex: "spec/fixtures/dragonbones/hero_tex.json" },
  { name: "hero45", ske: "spec/fixtures/dragonbones/hero45_ske.json", tex: "spec/fixtures/dragonbones/hero_tex.json" },
];
const TIMES = 10;

// Display hooks as no-ops ---------------------------------------------------
class HeadlessTextureData extends DB.TextureData {
  static toString() { return "[class HeadlessTextureData]"; }
}
class HeadlessAtlasData extends DB.TextureAtlasData {
  static toString() { return "[class HeadlessAtlasData]"; }
  createTexture() { return DB.BaseObject.borrowObject(HeadlessTextureData); }
}
class HeadlessSlot extends DB.Slot {
  static toString() { return "[class HeadlessSlot]"; }
  _initDisplay() {}
  _disposeDisplay() {}
  _onUpdateDisplay() {}
  _addDisplay() {}
  _replaceDisplay() {}
  _removeDisplay() {}
  _updateZOrder() {}
  _updateVisible() {}
  _updateBlendMode() {}
  _updateColor() {}
  _updateFrame() {}
  _updateMesh() {}
  _updateGlueMesh() {}
  _updateTransform() {}
  _identityTransform() {}
}
// the armature's proxy (IArmatureProxy): events go nowhere
function proxy() {
  let armature = null;
  return {
    dbInit(a) { armature = a; },
    dbClear() {},
    dbUpdate() {},
    dispose() {},
    hasDBEventListener() { return false; },
    dispatchDBEvent() {},
    addDBEventListener() {},
    removeDBEventListener() {},
    get armature() { return armature; },
    get animation() { return armature.animation; },
  };
}
class HeadlessFactory extends DB.BaseFactory {
  constructor() {
    super(null);
    this._dragonBones = new DB.DragonBones({
      hasDBEventListener() { return false; },
      dispatchDBEvent() {},
      addDBEventListener() {},
      removeDBEventListener() {},
    });
  }
  _isSupportMesh() { return true; }
  _buildTextureAtlasData(data) {
    return data || DB.BaseObject.borrowObject(HeadlessAtlasData);
  }
  _buildArmature(dataPackage) {
    const armature = DB.BaseObject.borrowObject(DB.Armature);
    const p = proxy();
    armature.init(dataPackage.armature, p, p, this._dragonBones);
    return armature;
  }
  _buildSlot(dataPackage, slotData, armature) {
    const slot = DB.BaseObject.borrowObject(HeadlessSlot);
    slot.init(slotData, armature, {}, {});
    return slot;
  }
}

// Reading a pose ------------------------------------------------------------
const round = (x) => Number(x.toPrecision(12)) + 0; // (+0: no -0 in the file)

function pose(armature) {
  const bones = {};
  for (const bone of armature.getBones()) {
    const m = bone.globalTransformMatrix;
    bones[bone.name] = [m.a, m.b, m.c, m.d, m.tx, m.ty].map(round);
  }
  const slots = {};
  const order = [];
  const sorted = armature.getSlots().slice().sort((p, q) => p._zOrder - q._zOrder);
  for (const slot of sorted) order.push(slot.name);
  for (const slot of armature.getSlots()) {
    const c = slot._colorTransform;
    slots[slot.name] = {
      display: slot.displayIndex,
      color: [c.redMultiplier, c.greenMultiplier, c.blueMultiplier, c.alphaMultiplier,
        c.redOffset, c.greenOffset, c.blueOffset, c.alphaOffset].map(round),
    };
  }
  return { bones, slots, order };
}

// The bones an IK constraint moves (its bones and everything below them):
// the spec compares them once the module solves IK as DragonBones does.
function ikBones(armatureData) {
  const moved = new Set();
  for (const name in armatureData.constraints) {
    const c = armatureData.constraints[name];
    moved.add(c.root.name);
    if (c.bone) moved.add(c.bone.name);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const b of armatureData.sortedBones) {
      if (b.parent && moved.has(b.parent.name) && !moved.has(b.name)) { moved.add(b.name); grew = true; }
    }
  }
  return [...moved].sort();
}

function reference(sk, outPath) {
  const factory = new HeadlessFactory();
  const ske = JSON.parse(readFileSync(resolve(root, sk.ske), "utf8"));
  const data = factory.parseDragonBonesData(ske, sk.name);
  if (!data) throw new Error(`${sk.ske}: the runtime does not read it`);
  if (sk.tex && existsSync(resolve(root, sk.tex))) {
    factory.parseTextureAtlasData(JSON.parse(readFileSync(resolve(root, sk.tex), "utf8")), null, sk.name);
  }
  const out = {
    source: sk.ske, // (relative: the tree's fixture; absolute: a demo outside it)
    runtime: `${pkg.name} ${pkg.version}`,
    matrix: "[a, b, c, d, tx, ty]: x' = a*x + c*y + tx, y' = b*x + d*y + ty (DragonBones' Matrix), y down",
    color: "[rM, gM, bM, aM, rO, gO, bO, aO]: multipliers 0..1, offsets 0..255",
    stage: data.stage ? data.stage.name : null,
    armatures: {},
  };
  for (const armatureName of data.armatureNames) {
    const armatureData = data.getArmature(armatureName);
    const setup = factory.buildArmature(armatureName, sk.name);
    setup.invalidUpdate();
    setup.advanceTime(0);
    const entry = {
      frame_rate: armatureData.frameRate,
      ik_bones: ikBones(armatureData),
      setup: pose(setup),
      animations: {},
    };
    for (const animName of armatureData.animationNames) {
      const anim = armatureData.getAnimation(animName);
      const frames = anim.frameCount;
      const samples = [];
      for (let i = 0; i < TIMES; i++) {
        const frame = Math.floor(i * frames / TIMES);
        const t = frame / armatureData.frameRate;
        const armature = factory.buildArmature(armatureName, sk.name);
        armature.animation.gotoAndPlayByTime(animName, 0);
        armature.invalidUpdate();
        armature.advanceTime(t);
        samples.push({ frame, time: t, ...pose(armature) });
        armature.dispose();
      }
      entry.animations[animName] = { frames, duration: anim.duration, play_times: anim.playTimes, samples };
    }
    setup.dispose();
    out.armatures[armatureName] = entry;
  }
  writeFileSync(outPath, JSON.stringify(out, null, 1) + "\n");
  info(`wrote ${outPath}`);
}

// --demos DIR: DragonBones' public demo skeletons (no npm package carries
// them: a folder of *_ske.json, each with its *_tex.json beside it, e.g.
// the Demos of the DragonBonesJS repository), their references written into
// the cache (CACHE/demos/<name>.json, naming the skeleton's absolute path)
// for spec/dragonbones_demos_spec.lua (#long), never into the tree.
const at = process.argv.indexOf("--demos");
if (at >= 0) {
  const dir = resolve(process.argv[at + 1] || ".");
  const outDir = join(cache, "demos");
  mkdirSync(outDir, { recursive: true });
  for (const f of readdirSync(dir).filter((n) => n.endsWith("_ske.json")).sort()) {
    const name = f.slice(0, -"_ske.json".length);
    // (5.6's surface bones are beyond what the importer reads; the runtime
    // runs out of memory on the one demo that has them)
    if (readFileSync(join(dir, f), "utf8").includes('"surface"')) { info(`skipped ${f}: surface bones (5.6)`); continue; }
    try {
      reference({ name, ske: join(dir, f), tex: join(dir, name + "_tex.json") }, join(outDir, name + ".json"));
    } catch (e) {
      info(`skipped ${f}: ${e.message}`);
    }
  }
} else {
  for (const sk of SKELETONS) reference(sk, join(root, `spec/data/dragonbones_${sk.name}.json`));
}
