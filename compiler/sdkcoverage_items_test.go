package compiler

// SDK documents: "a" is shared/reference/platform-sdk-a.md, "b"
// platform-sdk-b.md; "issue" marks the fields issue 11's "New kinds"
// lists for a kind that sdk-a only names (Container, ScalingGroup,
// @cc.training), so that no field of those kinds goes unchecked.
const (
	aEnv      = "Environment variables and secrets"
	aQuick    = "Quick start"
	aBase     = "Base images"
	aSteps    = "Build steps"
	aCompose  = "Immutable composition"
	aEval     = "Evaluations"
	aScorers  = "Built-in scorers"
	aJudges   = "LLM judges"
	aRevs     = "Deployment revisions and rollback"
	aCreate   = "Creating sandboxes"
	aGit      = "Git inside a sandbox"
	aTmux     = "Add tmux to a sandbox image"
	aHandles  = "Return sandbox handles from functions"
	aCatalog  = "Catalog discovery of typed functions"
	bSandbox  = "Sandbox: advanced configuration kwargs"
	bRun      = "Sandbox: construction and stop()"
	bSession  = "Session"
	bDefaults = "SandboxDefaults"
	bNetwork  = "NetworkOptions"
	bSecret   = "Secret"
	bRes      = "ResourceOptions"
	bFSS      = "File System Snapshots (FSS)"
	bFunc     = "Function Execution"
	iKinds    = "New kinds"
)

// sdkItems are the declarative items of both SDK documents (issue 11
// acceptance 2): what a configuration declares, each with the cc field
// that expresses it. An item the SDK spells twice (env on every kind) is
// listed once per kind it names.
var sdkItems = []sdkItem{
	// sdk-a: Quick start; Environment variables and secrets.
	{"create(image=\"ubuntu:latest\"): an image by reference alone", "a", aQuick, "#Sandbox.image", "ubuntu:latest"},
	{"Sandbox(env={...}) literal values", "a", aEnv, "#Sandbox.env", ""},
	{"Container env", "a", aEnv, "#Container.env", ""},
	{"ScalingGroup env", "a", aEnv, "#ScalingGroup.env", ""},
	{"@cc.function env", "a", aEnv, "#Function.env", ""},
	{"@cc.cls: a class deployed as one function", "a", aEnv, "#Function.methods", ""},
	{"@cc.training env", "a", aEnv, "#Training.env", ""},
	{"Secret.from_chalk_env (an env value)", "a", aEnv, "#Secret.from_service", ""},
	{"Secret.from_local_env", "a", aEnv, "#Secret.from_env", ""},
	{"Secret.from_chalk_integration(name)", "a", aEnv, "#Secret.from_integration.name", ""},
	{"Secret.from_chalk_integration(keys=[...])", "a", aEnv, "#Secret.from_integration.keys", ""},
	{"Secret.from_local_env_file(path)", "a", aEnv, "#Secret.from_env_file.path", ""},
	{"secrets=[...] alongside env", "a", aEnv, "#Sandbox.env_from", ""},
	{"@cc.training secrets: Chalk references only", "a", aEnv, "#Training.env_from", ""},
	{"Image.env(...) literal strings", "a", aEnv, "#Image.steps.env.vars", ""},
	{"add_credentials(hosts, ...)", "a", aEnv, "#Sandbox.credentials.hosts", ""},
	{"add_credentials(hosts, \"OPENAI_API_KEY\"): an existing Chalk secret", "a", aEnv, "#Credential.secret.from_service", ""},
	{"add_credentials(hosts, Secret.from_local_env(...))", "a", aEnv, "#Credential.secret.from_env", ""},

	// sdk-a: Declarative images.
	{"Image.base(ref)", "a", aBase, "#Image.from", ""},
	{"Image.debian_slim(): python:3.14-slim-trixie", "a", aBase, "#Image.from", "python:3.14-slim-trixie"},
	{"Image.from_dockerfile(path)", "a", aBase, "#Image.from_dockerfile", ""},
	{"pip_install([...])", "a", aSteps, "#Image.steps.pip.packages", ""},
	{"pip_install_from_requirements(file)", "a", aSteps, "#Image.steps.pip_requirements.file", ""},
	{"apt_install([...])", "a", aSteps, "#Image.steps.apt.packages", ""},
	{"run_commands(...)", "a", aSteps, "#Image.steps.run.commands", ""},
	{"add_local_file(src, dst)", "a", aSteps, "#Image.steps.copy.src", ""},
	{"add_local_file(..., mode=0o755)", "a", aSteps, "#Image.steps.copy.mode", ""},
	{"add_local_dir(src, dst)", "a", aSteps, "#Image.steps.copy.dst", ""},
	{"dockerfile_commands([...])", "a", aSteps, "#Image.steps.dockerfile.commands", ""},
	{"workdir(path)", "a", aSteps, "#Image.steps.workdir.path", ""},
	{"entrypoint([...])", "a", aSteps, "#Image.entrypoint", ""},
	{"cmd([...])", "a", aSteps, "#Image.cmd", ""},
	{"an image built on another image (shared base)", "a", aCompose, "#Image.from.steps", ""},
	{"Image.sandbox(): workdir /workspace", "a", aGit, "#Image.steps.workdir.path", "/workspace"},
	{"Image.sandbox(): git, ca-certificates and OpenSSH", "a", aGit, "#Image.steps.apt.packages", "openssh-client"},
	{"Sandbox() without image uses Image.sandbox()", "a", aGit, "#Sandbox.image", ""},
	{"Image.sandbox().apt_install([\"tmux\"]): the sandbox image as a base", "a", aTmux, "#Image.steps.apt.packages", "tmux"},

	// sdk-a: Evaluations, built-in scorers, LLM judges.
	{"DatasetClient.upload(name, file.csv)", "a", aEval, "#Dataset.files", ""},
	{"a dataset's platform name (support_goldens)", "a", aEval, "#Dataset.name", ""},
	{"upload: CSV or Parquet", "a", aEval, "#Dataset.format", ""},
	{"upload: row mappings", "a", aEval, "#Dataset.rows", ""},
	{"upload: column mappings", "a", aEval, "#Dataset.columns", ""},
	{"EvaluationSuite.create(\"Release\")", "a", aEval, "#Config.suites", ""},
	{"EvaluationSuite title", "a", aEval, "#Suite.title", ""},
	{"@cc.function(name=...)", "a", aEval, "#Config.functions", ""},
	{"@cc.function: the function it decorates", "a", aEval, "#Function.handler", ""},
	{"Evaluation.create(\"Customer Support Chatbot\")", "a", aEval, "#Evaluation.title", ""},
	{"Evaluation.create(dataset=)", "a", aEval, "#Evaluation.dataset", ""},
	{"Evaluation.create(task=)", "a", aEval, "#Evaluation.task", ""},
	{"Evaluation.create(scorers=[a deployed function])", "a", aEval, "#Evaluation.scorers.function", ""},
	{"Evaluation.create(suite_id=)", "a", aEval, "#Evaluation.suite", ""},
	{"evaluation.run(metadata={...})", "a", aEval, "#Evaluation.metadata", ""},
	{"task=RemoteFunction.from_name(...)", "a", aEval, "#Evaluation.external_task.name", ""},
	{"task=RemoteFunction.from_id / from_version_id", "a", aEval, "#Evaluation.external_task.version_id", ""},
	{"scorers=[RemoteFunction.from_version_id(...)]", "a", aEval, "#Scorer.function_version", ""},
	{"scorers take inputs (candidate, reference)", "a", aScorers, "#Scorer.exact_match.inputs", ""},
	{"exact_match", "a", aScorers, "#Scorer.exact_match", ""},
	{"exact_match(case_insensitive=)", "a", aScorers, "#Scorer.exact_match.case_insensitive", ""},
	{"exact_match: trimming", "a", aScorers, "#Scorer.exact_match.trim", ""},
	{"exact_match: whitespace collapsing", "a", aScorers, "#Scorer.exact_match.collapse_whitespace", ""},
	{"levenshtein", "a", aScorers, "#Scorer.levenshtein", ""},
	{"regex_match pattern", "a", aScorers, "#Scorer.regex_match.pattern", ""},
	{"regex_match: appears in or covers", "a", aScorers, "#Scorer.regex_match.full_match", ""},
	{"contains", "a", aScorers, "#Scorer.contains", ""},
	{"contains: all, any or fraction", "a", aScorers, "#Scorer.contains.mode", ""},
	{"numeric_close: absolute tolerance", "a", aScorers, "#Scorer.numeric_close.abs_tol", ""},
	{"numeric_close: relative tolerance", "a", aScorers, "#Scorer.numeric_close.rel_tol", ""},
	{"numeric_close: graded", "a", aScorers, "#Scorer.numeric_close.graded", ""},
	{"string_similarity method", "a", aScorers, "#Scorer.string_similarity.method", ""},
	{"json_valid", "a", aScorers, "#Scorer.json_valid", ""},
	{"json_match", "a", aScorers, "#Scorer.json_match", ""},
	{"json_match paths", "a", aScorers, "#Scorer.json_match.paths", ""},
	{"embedding_similarity", "a", aScorers, "#Scorer.embedding_similarity", ""},
	{"llm_judge(Model, ...)", "a", aJudges, "#Scorer.llm_judge", ""},
	{"llm_judge: the model's score field", "a", aJudges, "#LLMJudge.fields.name", "score"},
	{"llm_judge: a field's type (float, int, str, bool)", "a", aJudges, "#LLMJudge.fields.type", ""},
	{"llm_judge: Field(ge=, le=)", "a", aJudges, "#LLMJudge.fields.range", ""},
	{"llm_judge: Field(description=)", "a", aJudges, "#LLMJudge.fields.description", ""},
	{"llm_judge: an enum field", "a", aJudges, "#LLMJudge.fields.type", "enum"},
	{"llm_judge: a list field", "a", aJudges, "#LLMJudge.fields.type", "list"},
	{"llm_judge: a nested model field", "a", aJudges, "#LLMJudge.fields.type", "object"},
	{"llm_judge(model=)", "a", aJudges, "#LLMJudge.model", ""},
	{"llm_judge(instructions=)", "a", aJudges, "#LLMJudge.instructions", ""},
	{"llm_judge(name=)", "a", aJudges, "#LLMJudge.name", ""},
	{"llm_judge(inputs=)", "a", aJudges, "#LLMJudge.inputs", ""},
	{"llm_judge(prompt_fn=)", "a", aJudges, "#LLMJudge.prompt", ""},
	{"llm_judge(parse_fn=)", "a", aJudges, "#LLMJudge.parse", ""},
	{"llm_judge(completion_kwargs=)", "a", aJudges, "#LLMJudge.completion", ""},
	{"llm_judge(api_key=Secret...)", "a", aJudges, "#LLMJudge.api_key", ""},
	{"llm_judge(base_url=)", "a", aJudges, "#LLMJudge.base_url", ""},

	// sdk-a: revisions, sandboxes, functions returning sandboxes.
	{"ScalingGroup(name=)", "a", aRevs, "#Config.scaling_groups", ""},
	{"ScalingGroup(image=)", "a", aRevs, "#ScalingGroup.image", ""},
	{"deploy(force_new_version=True)", "a", aRevs, "#Function.version_trigger", ""},
	{"RemoteFunction.from_function_id(...): a stable parent", "a", aRevs, "#Config.data.functions", ""},
	{"a scorer returning a list of results (several scores)", "a", aRevs, "#Scorer.scores", ""},
	{"create(cpu=)", "a", aCreate, "#Sandbox.resources.requests.cpu", ""},
	{"create(memory=)", "a", aCreate, "#Sandbox.resources.requests.memory", ""},
	{"create(chalk_identity=True)", "a", aCreate, "#Sandbox.identity", ""},
	{"mount_volume(name, path): the volume", "a", aCreate, "#Sandbox.volume_mounts.volume", ""},
	{"mount_volume(name, path): the path", "a", aCreate, "#Sandbox.volume_mounts.path", ""},
	{"a named volume (build-cache)", "a", aCreate, "#Config.volumes", ""},
	{"Sandbox(compute_class=ComputeClass.HOST)", "a", aHandles, "#Sandbox.compute_class", ""},
	{"Sandbox(lifetime=\"3600s\")", "a", aHandles, "#Sandbox.lifetime", ""},
	{"Sandbox(entrypoint=[...])", "a", aHandles, "#Sandbox.entrypoint", ""},
	{"Sandbox(secrets=[Secret(\"ANTHROPIC_API_KEY\")])", "a", aHandles, "#Sandbox.env_from.from_service", ""},
	{"the provisioning function's identity", "a", aHandles, "#Function.identity", ""},
	{"a function's docstring (chalk.function.description)", "a", aCatalog, "#Function.description", ""},
	{"functions from ordinary files: file/package deployment", "a", aCatalog, "#Function.source.paths", ""},
	{"a function's image", "a", aCatalog, "#Function.image", ""},

	// sdk-b: Sandbox.
	{"Sandbox.run(command)", "b", bRun, "#Sandbox.command", ""},
	{"Sandbox.run(command, args)", "b", bRun, "#Sandbox.args", ""},
	{"stop(snapshot_on_stop=True)", "b", bRun, "#Sandbox.stop.snapshot_on_stop", ""},
	{"stop(graceful_shutdown_seconds=)", "b", bRun, "#Sandbox.stop.grace_period", ""},
	{"resources", "b", bSandbox, "#Sandbox.resources", ""},
	{"mounted_files: the local file", "b", bSandbox, "#Sandbox.mounted_files.src", ""},
	{"mounted_files: the path in the sandbox", "b", bSandbox, "#Sandbox.mounted_files.path", ""},
	{"s3_mount: bucket", "b", bSandbox, "#Sandbox.s3_mount.bucket", ""},
	{"s3_mount: prefix", "b", bSandbox, "#Sandbox.s3_mount.prefix", ""},
	{"s3_mount: mount path", "b", bSandbox, "#Sandbox.s3_mount.mount_path", ""},
	{"s3_mount: read-only", "b", bSandbox, "#Sandbox.s3_mount.read_only", ""},
	{"s3_mount: credentials", "b", bSandbox, "#Sandbox.s3_mount.credentials", ""},
	{"ports (port mappings)", "b", bSandbox, "#Sandbox.ports", ""},
	{"network", "b", bSandbox, "#Sandbox.network", ""},
	{"secrets", "b", bSandbox, "#Sandbox.env_from", ""},
	{"max_timeout_seconds", "b", bSandbox, "#Sandbox.max_timeout", ""},
	{"environment_variables", "b", bSandbox, "#Sandbox.env", ""},
	{"annotations", "b", bSandbox, "#Sandbox.annotations", ""},
	{"tags (propagate to the backend for filtering)", "b", bDefaults, "#Sandbox.tags", ""},

	// sdk-b: Session and SandboxDefaults.
	{"Session(defaults): defaults shared by a project's sandboxes", "b", bSession, "#Config.defaults", ""},
	{"session.sandbox(...): a sandbox taking the session's defaults", "b", bSession, "#Sandbox.use_defaults", ""},
	{"session.function(): a function taking the session's defaults", "b", bSession, "#Function.use_defaults", ""},
	{"container_image", "b", bDefaults, "#Sandbox.image", ""},
	{"max_lifetime_seconds", "b", bDefaults, "#Sandbox.lifetime", ""},
	{"temp_dir", "b", bDefaults, "#Sandbox.temp_dir", ""},
	{"profile_ids, profile_names", "b", bDefaults, "#Sandbox.profiles", ""},
	{"runner_ids", "b", bDefaults, "#Sandbox.runners", ""},
	{"file_system_snapshot (on defaults)", "b", bDefaults, "#Sandbox.snapshot", ""},

	// sdk-b: NetworkOptions, Secret, ResourceOptions, FSS.
	{"ingress_mode", "b", bNetwork, "#Network.ingress_mode", ""},
	{"exposed_ports", "b", bNetwork, "#Network.exposed_ports", ""},
	{"egress_mode", "b", bNetwork, "#Network.egress_mode", ""},
	{"Secret(store=)", "b", bSecret, "#Secret.from_store.store", ""},
	{"Secret(name=)", "b", bSecret, "#Secret.from_store.name", ""},
	{"Secret(field=)", "b", bSecret, "#Secret.from_store.field", ""},
	{"Secret(env_var=)", "b", bSecret, "#Secret.env_var", ""},
	{"requests.cpu", "b", bRes, "#Resources.requests.cpu", ""},
	{"requests.memory", "b", bRes, "#Resources.requests.memory", ""},
	{"limits.cpu", "b", bRes, "#Resources.limits.cpu", ""},
	{"limits.memory", "b", bRes, "#Resources.limits.memory", ""},
	{"gpu.count", "b", bRes, "#Resources.gpu.count", ""},
	{"gpu.type", "b", bRes, "#Resources.gpu.type", ""},
	{"FileSystemSnapshotOptions.mount_path", "b", bFSS, "#Sandbox.snapshot.mount_path", ""},
	{"FileSystemSnapshotOptions.size", "b", bFSS, "#Sandbox.snapshot.size", ""},
	{"FileSystemSnapshotOptions.file_system_snapshot_id (restore, fork)", "b", bFSS, "#Sandbox.snapshot.restore_from", ""},

	// sdk-b: Function Execution (@session.function takes the sandbox
	// kwargs).
	{"@session.function(container_image=)", "b", bFunc, "#Function.image", ""},
	{"@session.function(resources=)", "b", bFunc, "#Function.resources", ""},
	{"@session.function(mounted_files=)", "b", bFunc, "#Function.mounted_files", ""},
	{"@session.function(network=)", "b", bFunc, "#Function.network", ""},
	{"@session.function(secrets=)", "b", bFunc, "#Function.env_from", ""},
	{"@session.function(environment_variables=)", "b", bFunc, "#Function.env", ""},
	{"@session.function(annotations=)", "b", bFunc, "#Function.annotations", ""},
	{"@session.function(max_timeout_seconds=)", "b", bFunc, "#Function.timeout", ""},
	{"@session.function(s3_mount=)", "b", bFunc, "#Function.s3_mount", ""},
	{"@session.function(ports=)", "b", bFunc, "#Function.ports", ""},
	{"@session.function(file_system_snapshot=)", "b", bFunc, "#Function.snapshot", ""},
	{"function tags", "b", bFunc, "#Function.tags", ""},
	{"function credentials", "b", bFunc, "#Function.credentials", ""},
	{"function profiles", "b", bFunc, "#Function.profiles", ""},
	{"function compute class", "b", bFunc, "#Function.compute_class", ""},

	// issue 11 "New kinds": the fields of the kinds sdk-a names.
	{"Container", "issue", iKinds, "#Config.containers", ""},
	{"Container image", "issue", iKinds, "#Container.image", ""},
	{"Container command", "issue", iKinds, "#Container.command", ""},
	{"Container ports", "issue", iKinds, "#Container.ports", ""},
	{"Container health check", "issue", iKinds, "#Container.health_check", ""},
	{"Container restart policy", "issue", iKinds, "#Container.restart_policy", ""},
	{"Container resources", "issue", iKinds, "#Container.resources", ""},
	{"Container secrets", "issue", iKinds, "#Container.env_from", ""},
	{"Container network", "issue", iKinds, "#Container.network", ""},
	{"Container volume mounts", "issue", iKinds, "#Container.volume_mounts", ""},
	{"ScalingGroup command", "issue", iKinds, "#ScalingGroup.command", ""},
	{"ScalingGroup resources", "issue", iKinds, "#ScalingGroup.resources", ""},
	{"ScalingGroup replicas: min", "issue", iKinds, "#ScalingGroup.replicas.min", ""},
	{"ScalingGroup replicas: max", "issue", iKinds, "#ScalingGroup.replicas.max", ""},
	{"ScalingGroup replicas: target concurrency", "issue", iKinds, "#ScalingGroup.replicas.target_concurrency", ""},
	{"ScalingGroup secrets", "issue", iKinds, "#ScalingGroup.env_from", ""},
	{"ScalingGroup credentials", "issue", iKinds, "#ScalingGroup.credentials", ""},
	{"ScalingGroup network", "issue", iKinds, "#ScalingGroup.network", ""},
	{"ScalingGroup ports", "issue", iKinds, "#ScalingGroup.ports", ""},
	{"ScalingGroup volume mounts", "issue", iKinds, "#ScalingGroup.volume_mounts", ""},
	{"ScalingGroup identity", "issue", iKinds, "#ScalingGroup.identity", ""},
	{"ScalingGroup tags", "issue", iKinds, "#ScalingGroup.tags", ""},
	{"@cc.training", "issue", iKinds, "#Config.trainings", ""},
	{"@cc.training image", "issue", iKinds, "#Training.image", ""},
	{"@cc.training command", "issue", iKinds, "#Training.command", ""},
	{"@cc.training GPUs", "issue", iKinds, "#Training.resources.gpu.count", ""},
	{"@cc.training datasets mounted", "issue", iKinds, "#Training.datasets", ""},
	{"@cc.training volumes mounted", "issue", iKinds, "#Training.volume_mounts", ""},
}

// notDeclarative are the items of both documents that are not
// configuration: calls a program makes, handles, results, client
// settings. Each says why cc leaves it out, so that none is skipped
// silently.
var notDeclarative = []struct{ item, doc, why string }{
	{"SandboxClient(...), use_tls, from_env, context manager", "a", "connects a client to the service; cc's endpoint is a CLI flag, not project configuration"},
	{"CHALK_WEB_IDENTITY_TOKEN_FILE, CHALK_API_SERVER, CHALK_ENVIRONMENT", "a", "how the SDK client authenticates; not a resource"},
	{"ConnectClient().get_workload_identity_token(audience)", "a", "mints a token at run time"},
	{"SQLClient query, explain, submit(resource_group=), job.wait/refresh/download, persist", "a", "runs SQL and fetches results; no named dataset is registered"},
	{"DatasetClient.upload of PyArrow tables, record batches, dataframes", "a", "in-memory objects of a running program; cc declares files, rows and columns"},
	{"uploading to an existing name creates a new revision", "a", "behaviour of apply (a dataset's new revision), not a field"},
	{"evaluation.run(...).wait(), run.status, run.result_dataset", "a", "runs an evaluation and reads its result"},
	{"EvaluationScorerResult(score=, metadata=)", "a", "what a scorer function returns at run time"},
	{"function parameters bind to dataset columns; output and trace parameters", "a", "the function's code decides; cc checks inputs of built-ins and judges only"},
	{"the judge's default name (the model's name in kebab case)", "a", "a naming rule when name is unset, not a field of its own"},
	{"an imperative RemoteFunction must be deployed explicitly", "a", "an SDK calling rule"},
	{"group.deploy(), group.revisions(), group.rollback(id)", "a", "cc apply, cc versions and cc rollback do these"},
	{"rank.deploy(), rank.versions(), rank.rollback(id)", "a", "cc apply, cc versions and cc rollback do these"},
	{"ScalingGroup.from_id(...)", "a", "attaches a program's handle to an existing group; cc declares the group itself"},
	{"refresh(), delete() of a stable parent", "a", "calls on a handle; cc destroy deletes"},
	{"client.create(...) vs client.run(sandbox)", "a", "when a sandbox starts is apply's business"},
	{"client.list(), client.get(id), refresh(), terminate(grace_period_seconds=)", "a", "queries and calls on running sandboxes"},
	{"sandbox.exec, exec_stream, exec_start, write_stdin, close_stdin, send_signal, wait", "a", "runs processes in a running sandbox"},
	{"exec options workdir, timeout_secs, env", "a", "options of one exec call"},
	{"sandbox.git.* helpers (clone, status, branches, push, ...)", "a", "commands run in a running sandbox"},
	{"notebook source capture of @chalkcompute.function", "a", "how the SDK finds a function's code; cc takes source paths"},
	{"returning a Sandbox handle from a function; Arrow sandbox_id", "a", "a value a function returns at run time"},
	{"Herdr provisionFunction working directory and cleanup", "a", "another tool's configuration"},
	{"RemoteExecutionError, FunctionError and their tracebacks", "a", "errors a call raises"},
	{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, OTEL_EXPORTER_OTLP_PROTOCOL", "a", "the SDK's own telemetry"},
	{"chalk.python.type, chalk.function.is_generator, chalk.default metadata", "a", "derived from the function's code by the SDK"},
	{"Sandbox.start(), wait(), wait_until_complete(), get_status()", "b", "calls on a sandbox handle"},
	{"exec(cwd=, check=, timeout_seconds=, stdin=), shell(), stream_logs()", "b", "runs processes in a running sandbox"},
	{"read_file(), write_file()", "b", "file operations on a running sandbox (mounted_files declares files)"},
	{"stop(missing_ok=, wait_for_ready=, idempotency_key=)", "b", "options of one stop call"},
	{"snapshot(), get_snapshot(), list_snapshots(), delete_snapshot()", "b", "snapshot operations on the service"},
	{"get/set_snapshot_bucket_config(bucket_name, region)", "b", "an organisation's admin setting, not a project's"},
	{"status, sandbox_id, runner_id, profile_id, returncode, started_at, resource_requests/limits", "b", "properties read from the service"},
	{"Sandbox.list(tags=, status=, profile_ids=, include_stopped=), from_id(), delete()", "b", "queries and deletions (cc state, cc destroy)"},
	{"session.adopt(), session.list(), session.from_id(), session.close(), sandbox_count", "b", "calls on a session; cc import adopts"},
	{"base_url, request_timeout_seconds", "b", "client settings, not resources"},
	{"DEFAULT_* constants (image python:3.11, command, args, grace period 10s, temp dir /tmp)", "b", "the platform's values when a field is unset; cc leaves unset fields to the platform"},
	{"polling and retry constants (DEFAULT_POLL_*, DEFAULT_FSS_RETRY_BUDGET_SECONDS)", "b", "client behaviour"},
	{"merge_tags, merge_annotations, merge_environment_variables, with_overrides", "b", "the merge rules of defaults: behaviour of #Config.defaults, tested by its own tests"},
	{"RemoteFunction.remote(), map(), local()", "b", "calls a function"},
	{"OperationRef, StreamReader, StreamWriter, ProcessResult, TerminalSession", "b", "result types of calls"},
	{"cwsandbox.results(), cwsandbox.wait()", "b", "waits on calls"},
	{"list_runners(), get_runner(), list_profiles(), get_profile() and their filters", "b", "discovery queries; profiles and runners are declared as lists of names"},
	{"CWSANDBOX_API_KEY, set_auth_mode()", "b", "client authentication"},
	{"the exception hierarchy and retry classification", "b", "errors a call raises"},
	{"cleanup handlers (atexit, signals), _LoopManager", "b", "the client process's behaviour"},
	{"FileSystemSnapshot records, status and trigger enums", "b", "what the service reports about a snapshot"},
}
