project = "demo-${var.env}"

variable "env" {
  type        = string
  description = "the environment: no default, so plan needs it and validate does not"
}

image "app" {
  from = "python:3.12-slim"
}

sandbox "dev" {
  image   = image.app
  command = ["sleep", "infinity"]
  env     = { STAGE = var.env }
}
