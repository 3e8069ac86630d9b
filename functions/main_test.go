package functions_test

import (
	"testing"

	"github.com/screenagent/backend/infra/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }
