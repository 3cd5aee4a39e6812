export { startScriptedModel } from './scripted-model.js'
export type { ScriptedModel, Step } from './scripted-model.js'
