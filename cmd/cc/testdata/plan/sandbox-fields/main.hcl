project = "fields"
image "app" { from = "python:3.12-slim" }
secret "aws" {
  from_env_file { path = "aws.env" }
}
secret "token" { from_env = "TOKEN" }
sandbox "agent" {
  image         = image.app
  entrypoint    = ["sleep", "infinity"]
  compute_class = "host"
  port {
    container_port = 8080
    host_port      = 80
  }
  s3_mount {
    bucket      = "team-data"
    mount_path  = "/mnt/s3"
    read_only   = true
    credentials = secret.aws
  }
  max_timeout = "600s"
  runners     = ["runner-1"]
  profiles    = ["gpu-a100"]
  temp_dir    = "/scratch"
  stop { grace_period = "30s" }
}
function "ranker" {
  image       = image.app
  source { paths = ["src"] }
  handler     = "app.rank:Ranker"
  methods     = ["rank", "score"]
  description = "ranks answers"
  identity    = true
  credential {
    hosts  = ["api.openai.com"]
    secret = secret.token
  }
  tags = ["team-a"]
}
